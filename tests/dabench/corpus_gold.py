"""Gold tables rebuilt from the values GOLD_EVIDENCE.md quotes (participant error reports), for tests only."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import orjson

GRAND_PRIX = (
    "Australian Malaysian Brazilian San_Marino Spanish Austrian Monaco Canadian European British French "
    "German Hungarian Belgian Italian United_States"
)
CONSUMPTION = "1903.2 88265.39 1129.2 58.19 1142.95 8878.07 45937.22 69331.72 126157.7"
QUOTED: dict[str, tuple[str, list[str], list[list[str]]]] = {
    "task_163": ("medium", ["type", "SUM(T3.cost)"], [["Meeting", "175.39"]]),
    "task_169": ("medium", ["AVG(T2.Consumption) / 12"], [["459.9562642871061"]]),
    "task_180": (
        "medium",
        ["Consumption"],
        [[v] for v in CONSUMPTION.split(" ")],
    ),
    "task_200": ("medium", ["COUNT(T1.atom_id)"], [["1"]]),
    "task_249": ("medium", ["AVG(T1.UpVotes)", "AVG(T1.Age)"], [["182.2832618025751", "34.083333333333336"]]),
    "task_25": ("easy", ["event_name"], [["November Speaker"]]),
    "task_379": ("hard", ["element"], [[e] for e in ["c", "br", "cl", "s", "o", "n", "f"]]),
    "task_80": ("easy", ["number"], [["3"], ["5"]]),
    "task_86": ("easy", ["name"], [[f"{n.replace('_', ' ')} Grand Prix"] for n in GRAND_PRIX.split()]),
    "task_89": ("easy", ["time"], [["+16.445"]]),
    "task_418": ("extreme", ["COUNT(DISTINCT T1.ID)"], [["1"]]),
}
INFERRED: dict[str, tuple[str, list[str], list[list[str]]]] = {
    "task_24": ("easy", ["COUNT(member)"], [["17"]]),
    "task_355": ("hard", ["first_name", "last_name", "SUM(cost)"], [["Elijah", "Allen", "28.15"]]),
    "task_11": (
        "easy",
        ["ID", "SEX", "Diagnosis"],
        [["163109", "F", "SLE"], ["2803470", "F", "SLE"], ["4395720", "F", "SLE"]],
    ),
}
GOLD = {**QUOTED, **INFERRED}

DABENCH = Path("dabench")
RUNS = {
    "hyeonski": DABENCH / "hyeonski-blueshabu/artifacts/runs/ACON-2605102309-T0.3-H7000-K5",
    "xxy": DABENCH / "xxy1103-kddcup/artifacts/runs/20260412T035736Z",
    "zhenyuluok": DABENCH / "zhenyuluok-data-agent/artifacts/docker-out-v3/20260510T033502Z",
}


def write_dataset(root: Path) -> Path:
    """input/task_<id>/task.json and output/task_<id>/gold.csv for every task with known gold."""
    for task_id, (difficulty, header, rows) in GOLD.items():
        (root / "input" / task_id).mkdir(parents=True, exist_ok=True)
        task = {"task_id": task_id, "difficulty": difficulty, "question": "(not needed for scoring)"}
        (root / "input" / task_id / "task.json").write_bytes(orjson.dumps(task))
        (root / "output" / task_id).mkdir(parents=True, exist_ok=True)
        with (root / "output" / task_id / "gold.csv").open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([header, *rows])
    return root


def participant_scores(corpus: Path, run: str) -> dict[str, tuple[float, bool]]:
    """task_id → (the participant's λ=0.5 score, whether their report says the prediction was missing)."""
    folder = corpus / RUNS[run]
    if run == "zhenyuluok":
        report = orjson.loads((folder / "score_report.json").read_bytes())
        return {t["task_id"]: (t["score"], t["status"] == "PRED_MISSING") for t in report["tasks"]}
    if run == "xxy":
        report = orjson.loads((folder / "score.json").read_bytes())
        return {t["task_id"]: (t["proxy_scores"]["0.5"], t["prediction_csv_path"] is None) for t in report["tasks"]}
    found = {}
    for line in (folder / "score.txt").read_text(encoding="utf-8").splitlines():
        match = re.match(r"│ (task_\d+)\s+│\s+[\d.]+ │\s+[\d.]+ │\s+([\d.]+) │.*│\s*(\S.*?)?\s*│$", line)
        if match:
            found[match.group(1)] = (float(match.group(2)), (match.group(3) or "").startswith("prediction"))
    return found
