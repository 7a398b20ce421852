# SIGSYS handler (SA_SIGINFO): void handler(int sig, siginfo_t *info, ucontext_t *uc)
# The seccomp filter traps times() and sysinfo() (SECCOMP_RET_TRAP: the call does not run). This answers them as a
# kernel would, with fixed values: times() fills its buffer with zeros and returns 0; sysinfo() copies the
# 112-byte template that follows the code into its buffer (glibc's sysconf reads it unchecked) and still fails with
# ENOSYS, as before (os.getloadavg raises); any other trapped call returns -ENOSYS.
# The stat family (stat 4, fstat 5, lstat 6, newfstatat 262) is trapped too: the handler makes the call itself with
# the interrupted registers (its `syscall` instruction is the one place the filter lets them run from) and, where it
# succeeds, rewrites st_dev (offset 0 of the buffer) by the table of 16 (real, shown) pairs that follows the sysinfo
# template: the run's own tmpfs mounts, whose real numbers count the machine's anonymous devices, read as fixed ones.
# A file on any other device (the host's, bound read-only: the stdlib, its byte code, the libraries) shows its
# modification time as its access time (st_atim at 72 and 80 takes st_mtim's 88 and 96): the kernel moves a file's
# access time on a read at most once a day, so it told when the host, or another run, last read each file.
# A SIGSYS that is no seccomp trap (si_code other than SYS_SECCOMP, 1: sent by kill, tgkill, sigqueue) is left alone:
# the interrupted registers are not touched.
# info->si_code at 8, info->si_syscall at 24; uc->uc_mcontext.gregs at 40: RDI is gregs[8] (104), RAX gregs[13] (144),
# R10 gregs[2] (56), RSI gregs[9] (112), RDX gregs[12] (136).
        .intel_syntax noprefix
        .text
        .globl handler
handler:
        cmp     dword ptr [rsi + 8], 1
        jne     6f
        mov     eax, dword ptr [rsi + 24]
        mov     r8, qword ptr [rdx + 104]
        cmp     eax, 100
        je      1f
        cmp     eax, 99
        je      2f
        cmp     eax, 4
        je      7f
        cmp     eax, 5
        je      7f
        cmp     eax, 6
        je      7f
        cmp     eax, 262
        je      7f
        mov     qword ptr [rdx + 144], -38
        ret
1:      test    r8, r8
        jz      3f
        xor     ecx, ecx
        mov     qword ptr [r8], rcx
        mov     qword ptr [r8 + 8], rcx
        mov     qword ptr [r8 + 16], rcx
        mov     qword ptr [r8 + 24], rcx
3:      mov     qword ptr [rdx + 144], 0
        ret
2:      test    r8, r8
        jz      4f
        lea     r9, [rip + template]
        xor     ecx, ecx
5:      mov     rax, qword ptr [r9 + rcx]
        mov     qword ptr [r8 + rcx], rax
        add     ecx, 8
        cmp     ecx, 112
        jb      5b
        mov     qword ptr [rdx + 144], -38
        ret
4:      mov     qword ptr [rdx + 144], -14
6:      ret
7:      mov     r9, rdx
        mov     r8d, eax
        mov     rdi, qword ptr [r9 + 104]
        mov     rsi, qword ptr [r9 + 112]
        mov     rdx, qword ptr [r9 + 136]
        mov     r10, qword ptr [r9 + 56]
        syscall
        mov     qword ptr [r9 + 144], rax
        test    rax, rax
        jnz     6b
        cmp     r8d, 262
        cmove   rsi, rdx
        mov     rax, qword ptr [rsi]
        lea     rdi, [rip + template + 112]
        xor     ecx, ecx
8:      cmp     rax, qword ptr [rdi + rcx]
        je      9f
        add     ecx, 16
        cmp     ecx, 256
        jb      8b
        mov     rax, qword ptr [rsi + 88]
        mov     qword ptr [rsi + 72], rax
        mov     rax, qword ptr [rsi + 96]
        mov     qword ptr [rsi + 80], rax
        ret
9:      mov     rax, qword ptr [rdi + rcx + 8]
        mov     qword ptr [rsi], rax
        ret
        .balign 8
template:
