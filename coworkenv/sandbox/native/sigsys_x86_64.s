# SIGSYS handler (SA_SIGINFO): void handler(int sig, siginfo_t *info, ucontext_t *uc)
# The seccomp filter traps times() and sysinfo() (SECCOMP_RET_TRAP: the call does not run). This answers them as a
# kernel would, with fixed values: times() fills its buffer with zeros and returns 0; sysinfo() copies the
# 112-byte template that follows the code into its buffer (glibc's sysconf reads it unchecked) and still fails with
# ENOSYS, as before (os.getloadavg raises); any other trapped call returns -ENOSYS.
# A SIGSYS that is no seccomp trap (si_code other than SYS_SECCOMP, 1: sent by kill, tgkill, sigqueue) is left alone:
# the interrupted registers are not touched.
# info->si_code at 8, info->si_syscall at 24; uc->uc_mcontext.gregs at 40: RDI is gregs[8] (104), RAX gregs[13] (144).
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
        .balign 8
template:
