# The manual is tested: every pasted block of output in the pages remade by
# the command it shows and compared (docs.py; make docs writes them back),
# the fences well formed, the links between pages pointing somewhere.
# One test, a case per block: a failing case is named PAGE:LINE (COMMAND)
# and shown as a diff of the committed block against the one made now.
from harness import test
from qemu import VMError

import docs


@test("docs_manual", timeout=900, qemu=False)
def docs_manual(h):
    log = []
    parsed, problems, failures, _ = docs.run_all(jobs=1, log=log.append)
    report = log + ["docs: " + p for p in problems]
    for name, text in failures:
        report.append("== %s\n%s" % (name, text))
    h.text = "\n".join(report) + "\n"
    nb = sum(1 for _, bs in parsed.values() for b in bs if b.kind in ("guest", "host"))
    if problems or failures:
        raise VMError("%d of %d blocks differ from a fresh run, %d problems (make docs remakes "
                      "them):\n%s" % (len(failures), nb, len(problems), "\n".join(report[len(log):])))
