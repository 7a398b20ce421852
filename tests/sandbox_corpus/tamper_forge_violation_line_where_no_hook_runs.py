# expect: forbidden
# expect-kernel: bad_result
# The code writes the audit hook's own report on the result channel, a violation line naming a refusal that never
# happened ("reading /etc/shadow"), and returns. Where the hook runs it shares the process with the code, so the line
# cannot be told from its own (the verdict is `forbidden`, as an attempt at the refused read would have made it: a
# known limit). Where the caller switched the hook off (the kernel layers alone) nothing in the child writes such a
# line: main read it as the hook's refusal there ("blocked: reading '/etc/shadow' ..."); the host now takes it for
# tampering, as it takes a host verdict written as the final frame (`tamper_forge_host_verdict_forbidden`).
import os


def check(**p):
    os.write(3, b'\n{"violation":"reading \'/etc/shadow\' outside the scratch directory and the standard library"}\n')
    return 1
