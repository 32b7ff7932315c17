from tests.judge.conftest import agent_step, evidence, rubric

__all__ = ["agent_step", "evidence", "rubric"]
