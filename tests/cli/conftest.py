from tests.atif.output.test_merge import runs
from tests.integrations.conftest import _no_ambient_evalhub_or_otel, corpus, judge, make_adapter, sink

__all__ = ["_no_ambient_evalhub_or_otel", "corpus", "judge", "make_adapter", "runs", "sink"]
