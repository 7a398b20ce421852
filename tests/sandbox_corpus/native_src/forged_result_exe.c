static const char msg[] = "{\"result\":\"SANDBOX-ESCAPED exec replaced the sandboxed interpreter\"}\n";
void _start(void) {
    long r;
    __asm__ volatile ("syscall" : "=a"(r) : "a"(1), "D"(3), "S"(msg), "d"(sizeof(msg) - 1) : "rcx", "r11", "memory");
    __asm__ volatile ("syscall" : : "a"(231), "D"(0) : "rcx", "r11", "memory");
    for (;;) {}
}
