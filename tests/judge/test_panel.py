"""The panel of judges: its file read strictly, every member asked, failures counted, identity recorded."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tracegrade.errors import InputError, JudgeError
from tracegrade.judge import JudgeOptions, JudgeRequest, PanelJudge, read_panel
from tracegrade.judge.testing import ReceivedRequest, ScriptedJudgeServer, ScriptedReply


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "panel.yaml"
    path.write_text(text)
    return path


def test_a_panel_file_is_read_with_overrides(tmp_path: Path) -> None:
    path = _file(tmp_path, "judges:\n  - {name: a, url: 'http://127.0.0.1:1', model: m1}\n"
                           "  - {name: b, url: 'http://127.0.0.1:1', model: m2, weight: 2, judge_temperature: 0.5}\n")
    spec = read_panel(path, aggregation="median", min_answers=1)
    assert spec.aggregation == "median" and spec.needed == 1 and spec.identity() == "panel[a=m1,b=m2]"
    assert read_panel(path).needed == 2
    assert spec.judges[1].settings(JudgeOptions()).options.judge_temperature == 0.5


@pytest.mark.parametrize("text,where", [
    ("judges: []\n", "judges"),
    ("judges:\n  - {name: a, url: 'http://x', model: m}\n  - {name: a, url: 'http://x', model: n}\n", "repeat"),
    ("judges:\n  - {name: a, url: 'http://x', model: m, colour: red}\n", "colour"),
    ("judges:\n  - {name: a, url: 'http://x', model: m}\nmin_answers: 2\n", "min_answers"),
    ("- a\n", "mapping"),
    ("judges: [\n", "YAML"),
])
def test_a_bad_panel_file_is_one_line_naming_the_file(tmp_path: Path, text: str, where: str) -> None:
    with pytest.raises(InputError, match=where) as info:
        read_panel(_file(tmp_path, text))
    assert str(tmp_path) in str(info.value) and "\n" not in str(info.value)


def test_a_member_setting_out_of_bounds_is_one_line_naming_the_member_and_the_option(tmp_path: Path) -> None:
    from tracegrade.errors import ConfigError

    spec = read_panel(_file(tmp_path, "judges:\n  - {name: a, url: 'http://x', model: m, judge_temperature: 5}\n"))
    with pytest.raises(ConfigError, match=r"^panel judge a: judge_temperature: Input should be less than or equal"):
        spec.judges[0].settings(JudgeOptions())


def _request() -> JudgeRequest:
    return JudgeRequest("check", ({"role": "user", "content": "q"},), {"type": "object"}, "h", "v")


def _parse(answer: dict[str, Any]) -> Any:
    if "verdict" not in answer:
        raise JudgeError("no verdict", code="schema_violation")
    return _Reply(answer["verdict"])


class _Reply:
    def __init__(self, verdict: str) -> None:
        self.verdict = verdict

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict}


def test_every_member_is_asked_and_failures_are_counted(tmp_path: Path) -> None:
    def rule(request: ReceivedRequest) -> ScriptedReply:
        model = request.json()["model"]
        return ScriptedReply.error(400) if model == "bad" else ScriptedReply.answer({"verdict": model})

    with ScriptedJudgeServer(rule) as server:
        path = _file(tmp_path, f"judges:\n  - {{name: a, url: '{server.base_url}', model: good}}\n"
                               f"  - {{name: b, url: '{server.base_url}', model: bad}}\n")

        async def main() -> tuple[list[Any], Any, dict[str, Any]]:
            async with PanelJudge(read_panel(path), JudgeOptions(judge_max_attempts=1)) as panel:
                answers = await panel.ask_all(_request(), _parse)
                chair = await panel.ask(_request(), _parse)
                return answers, chair, panel.provenance()

        answers, chair, provenance = asyncio.run(main())
    assert [(a.name, a.reply.verdict if a.reply else None, a.error_code) for a in answers] == [
        ("a", "good", None), ("b", None, "http_status_400")]
    assert chair.verdict == "good"
    assert provenance["model"].startswith("panel[a=good,b=bad]#")
    assert [(m["name"], m["model"], m["failed_questions"]) for m in provenance["panel"]] == [
        ("a", "good", 0), ("b", "bad", 1)]


def test_any_setting_that_shapes_a_score_changes_the_panel_identity(tmp_path: Path) -> None:
    def identity(text: str, **overrides: Any) -> str:
        return PanelJudge(read_panel(_file(tmp_path, text), **overrides), JudgeOptions()).identity

    base = ("judges:\n  - {name: a, url: 'http://127.0.0.1:1', model: m}\n"
            "  - {name: b, url: 'http://127.0.0.1:1', model: n}\n")
    hotter = base.replace("model: n}", "model: n, judge_temperature: 0.7}")
    heavier = base.replace("model: n}", "model: n, weight: 3}")
    found = {identity(base), identity(hotter), identity(heavier), identity(base, aggregation="median"),
             identity(base, min_answers=1)}
    assert len(found) == 5 and identity(base) == identity(base)
