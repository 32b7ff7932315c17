import tracegrade.judge as judge


def test_all_is_sorted_and_importable() -> None:
    assert judge.__all__ == sorted(judge.__all__, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    for name in judge.__all__:
        assert getattr(judge, name) is not None


def test_prompt_version_is_the_current_generation() -> None:
    assert judge.PROMPT_VERSION == "atif-context-v2"
