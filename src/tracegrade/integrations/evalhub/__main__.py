"""``python -m tracegrade.integrations.evalhub``: run the EvalHub job named by ``EVALHUB_JOB_SPEC_PATH``."""

import sys

from tracegrade.integrations.evalhub._main import main

if __name__ == "__main__":
    sys.exit(main())
