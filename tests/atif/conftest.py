from tests.atif.nodes import billion_laughs, derive_factory, fake_derive, make_node, node_from_document_fixture
from tests.atif.scripted import judge_server

__all__ = [
    "billion_laughs",
    "derive_factory",
    "fake_derive",
    "judge_server",
    "make_node",
    "node_from_document_fixture",
]
