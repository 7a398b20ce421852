# expect: exception
# expect-kernel: exception
import threading
import time


def check(**p):
    while True:
        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()
