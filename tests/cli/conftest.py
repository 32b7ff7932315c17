from tests.atif.output.test_merge import runs

__all__ = ["runs"]
