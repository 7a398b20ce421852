# expect: forbidden
# expect-kernel: ok
# value: 1
# Raw with the hook off, the execution domain the host chose (personality(2), which fork and exec pass on and no
# audit event covers): the test host runs every snippet with ADDR_NO_RANDOMIZE and READ_IMPLIES_EXEC set (`setarch
# -R -X`, a debugger's launch), which made the child run without address-space randomisation and with every readable
# mapping executable, in all four sets. The child must run in the plain Linux domain (0).
# (`test_a_run_is_randomised_whatever_execution_domain_its_host_chose` shows the same without native code.)
import ctypes

PERSONALITY_QUERY = 0xFFFFFFFF


def check(**p):
    libc = ctypes.CDLL(None, use_errno=True)
    domain = libc.personality(ctypes.c_ulong(PERSONALITY_QUERY))
    if domain not in (0, -1):
        return f"SANDBOX-ESCAPED the host's execution domain {domain:#x}"
    return 1
