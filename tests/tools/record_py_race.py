"""stop() while other threads record (tests/e2e/record_py.sh, under an
ASan build of libtracefold-record): the binding must never call into a
recording that another thread has closed (freed).  Each round: 3 threads
record instants with nested annotations, counters and spans on a named
track in a loop; the main thread stops the recording under them.  Prints
the rounds done; ASan aborts the process on a use after free."""
import sys
import threading
import time

import tracefold.record as tfr

out = sys.argv[1]
rounds = 30
for k in range(rounds):
    tfr.start(out)
    done = [False]

    def work():
        while not done[0]:
            tfr.instant("x", a=1, d={"k": [1, 2.5, "s"]})
            tfr.counter("c", 1.0)
            with tfr.span("s", track="io", b=2):
                pass

    ts = [threading.Thread(target=work, daemon=True) for _ in range(3)]
    for t in ts:
        t.start()
    time.sleep(0.02)
    tfr.stop()
    time.sleep(0.005)
    done[0] = True
    for t in ts:
        t.join()
print(rounds)
