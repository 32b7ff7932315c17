from tests.atif.nodes import billion_laughs

__all__ = ["billion_laughs"]
