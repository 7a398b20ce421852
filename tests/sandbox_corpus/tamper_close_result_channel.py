# expect: ok
# expect-kernel: ok
# value: 1
# Close the result channel so that no result (nor any report) reaches the host. A channel's number is never freed
# (a file opened next would take it: channel_inodes_of_the_machine_through_fstat): the close returns without closing,
# and the value gets out as usual.
import os


def check(**p):
    os.close(3)
    return 1.0
