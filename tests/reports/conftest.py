from tests.scoring.conftest import judge_server

__all__ = ["judge_server"]
