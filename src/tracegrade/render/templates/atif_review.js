{#- The review page's script (included inline by atif_review.html). Every value from the server is put in the
    page with textContent or as an attribute value: no string from a run ever becomes markup. -#}
{% raw %}
(function () {
  "use strict";
  var CATEGORY_KEYS = {t: "tool_selection_failure", l: "context_loss", v: "policy_boundary_violation",
                       r: "reasoning_failure", n: "none"};
  var CATEGORY_NAMES = {tool_selection_failure: "tool selection", context_loss: "context loss",
                        policy_boundary_violation: "policy violation", reasoning_failure: "reasoning", none: "none",
                        uncategorized: "uncategorized"};
  var SCORES = [0, 0.25, 0.5, 0.75, 1];
  var state = null, form = empty(), revealed = null, busy = false, message = {text: "", kind: ""};
  var figures = null, waiting = [];

  // one answer, skip or undo at a time; a key pressed meanwhile waits for its turn instead of being lost
  function turn(action) {
    return function () {
      if (busy) { waiting.push(action); return; }
      action();
    };
  }

  function setBusy(value) {
    busy = value;
    document.body.setAttribute("data-busy", value ? "true" : "false");
    if (!value && waiting.length) { waiting.shift()(); }
  }

  function empty() { return {failed: null, score: null, category: null, decisive: false, note: ""}; }

  function el(tag, props) {
    var node = document.createElement(tag);
    var children = Array.prototype.slice.call(arguments, 2);
    if (props) {
      Object.keys(props).forEach(function (name) {
        var value = props[name];
        if (value === null || value === undefined || value === false) { return; }
        if (name === "class") { node.className = value; }
        else if (name === "text") { node.textContent = String(value); }
        else if (name === "onclick") { node.addEventListener("click", value); }
        else { node.setAttribute(name, value === true ? "" : String(value)); }
      });
    }
    children.forEach(function (child) {
      if (child === null || child === undefined || child === false) { return; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  function fmt(value, digits) {
    return value === null || value === undefined ? "\u2014" : Number(value).toFixed(digits === undefined ? 2 : digits);
  }

  function api(path, body) {
    var options = body === undefined ? {cache: "no-store"} :
      {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body), cache: "no-store"};
    return fetch(path, options).then(function (response) {
      return response.json().catch(function () { return {error: "HTTP " + response.status}; }).then(function (data) {
        if (!response.ok) { throw new Error(data.error || ("HTTP " + response.status)); }
        return data;
      });
    });
  }

  function say(text, kind) { message = {text: text, kind: kind || ""}; renderStatus(); }

  function load() {
    api("api/state").then(function (data) { accept(data.state); }).catch(function (error) {
      say("Could not load the queue: " + error.message, "error");
    });
  }

  // one figures request at a time: answers given meanwhile are counted by one more request when it returns
  var figuresBusy = false, figuresAgain = false;

  function loadFigures() {
    var panel = document.getElementById("figures-panel");
    panel.setAttribute("aria-busy", "true");
    if (figuresBusy) { figuresAgain = true; return; }
    figuresBusy = true;
    api("api/figures").then(function (data) {
      figures = data;
      renderFigures();
    }).catch(function (error) { say("Could not compute the figures: " + error.message, "error"); }).then(function () {
      figuresBusy = false;
      if (figuresAgain) { figuresAgain = false; loadFigures(); }
      else { panel.setAttribute("aria-busy", "false"); }
    });
  }

  function accept(next) {
    loadFigures();
    state = next;
    form = state.draft ? Object.assign(empty(), state.draft, {decisive: !!state.draft.decisive,
                                                                note: state.draft.note || ""}) : empty();
    render();
  }

  // ---------------------------------------------------------------- rendering

  function render() {
    renderHeader();
    renderItem();
    renderJudge();
    renderAnswer();
    renderFigures();
    renderHelp();
  }

  function renderHeader() {
    var p = state.progress;
    var meta = document.getElementById("meta");
    meta.textContent = "job " + state.run.job_id + " \u00b7 judge " + state.run.judge + " \u00b7 reviewer " +
      state.reviewer + " \u00b7 order " + state.order.name + (state.order.name === "random" ? " (seed " +
      state.order.seed + ")" : "") + (state.blind ? " \u00b7 blind" : "");
    document.getElementById("meter").style.width = (p.total ? 100 * p.answered / p.total : 0) + "%";
    document.getElementById("count").textContent = p.answered + " of " + p.total + " answered" +
      (p.skipped ? " \u00b7 " + p.skipped + " skipped" : "");
  }

  function textBlock(label, text, extraClass) {
    if (text === null || text === undefined || text === "") { return null; }
    return el("div", null, el("div", {class: "label", text: label}),
      el("pre", {class: "text" + (extraClass ? " " + extraClass : ""), text: text}));
  }

  function contentNodes(content) {
    if (!content) { return [el("p", {class: "muted", text: "The results hold no copy of this step."})]; }
    var nodes = [textBlock("Message", content.message), textBlock("Reasoning", content.reasoning)];
    if (content.tool_calls.length) {
      nodes.push(el("div", {class: "label", text: "Tool calls (" + content.tool_calls.length + ")"}));
      content.tool_calls.forEach(function (call) {
        nodes.push(el("div", {class: "call"}, el("div", {class: "fn", text: call.function_name +
          (call.tool_call_id ? "  \u00b7 " + call.tool_call_id : "")}), el("pre", {class: "text", text: call.arguments})));
      });
    }
    if (content.observations.length) {
      nodes.push(el("div", {class: "label", text: "Observations (" + content.observations.length + ")"}));
      content.observations.forEach(function (result) {
        var refs = result.subagent_refs.length ? "delegated to " + result.subagent_refs.join(", ") : null;
        nodes.push(el("div", {class: "call"},
          result.source_call_id ? el("div", {class: "fn", text: "result of " + result.source_call_id}) : null,
          result.content !== null ? el("pre", {class: "text", text: result.content}) : null,
          refs ? el("div", {class: "muted", text: refs}) : null));
      });
    }
    if (content.truncated) {
      nodes.push(el("p", {class: "note-line", text: "Long parts were cut in the results" +
        (content.omitted_items ? "; " + content.omitted_items + " tool calls or results left out" : "") + "."}));
    }
    if (!content.message && !content.reasoning && !content.tool_calls.length && !content.observations.length) {
      nodes.push(el("p", {class: "muted", text: "This step has no message, reasoning, tool call or observation."}));
    }
    return nodes;
  }

  function renderItem() {
    var panel = document.getElementById("item-panel");
    panel.replaceChildren();
    var item = state.item;
    if (!item && !state.progress.total) {
      panel.appendChild(el("div", {class: "done", id: "done"},
        el("p", {class: "big", text: "This run has no scored step to review."}),
        el("p", {class: "muted", text: "Steps the judge could not score, and copied context, are left out of the " +
          "queue."})));
      return;
    }
    if (!item) {
      panel.appendChild(el("div", {class: "done", id: "done"},
        el("p", {class: "big", text: "Every step of the queue has your answer."}),
        el("p", {class: "muted", text: state.progress.answered + " answers are in " + state.labels_file +
          ". Press u to take back the last one, or compare them with the judge:"}),
        el("pre", {class: "text", text: "tracegrade agree " + state.run.folder + " --labels " + state.labels_file +
          " --reviewer " + state.reviewer})));
      return;
    }
    panel.setAttribute("data-node", item.node_id);
    panel.setAttribute("data-step", String(item.step));
    var title = el("h2", {id: "item-title"}, "Step " + item.step + " of " + (item.trajectory_id || item.node_id),
      el("span", {class: "aside", text: "queue position " + item.position + " of " + state.progress.total}));
    panel.appendChild(title);
    var where = el("div", {class: "where"},
      el("span", null, "node ", el("b", {text: item.node_id})),
      item.session_id ? el("span", null, "session ", el("b", {text: item.session_id})) : null,
      item.agent ? el("span", null, "agent ", el("b", {text: item.agent})) : null,
      el("span", null, "source ", el("b", {text: item.source})),
      el("span", null, "step_id ", el("b", {text: String(item.step_id) + (item.segment ? " (segment " +
        item.segment + ")" : "")})));
    panel.appendChild(where);
    if (item.contested) { panel.appendChild(el("div", {class: "contested", text: "Contested: " + item.contested})); }
    if (item.task !== null) { panel.appendChild(textBlock("Task", item.task, "task")); }
    else { panel.appendChild(el("p", {class: "muted", text: "No task recorded for this trajectory."})); }
    var body = el("div", {id: "step-content"});
    contentNodes(item.content).forEach(function (node) { if (node) { body.appendChild(node); } });
    panel.appendChild(el("div", {class: "label", text: "The step, as the judge saw it"}));
    panel.appendChild(body);
    var kept = item.history.length, summary = "History the judge kept: " + kept + " earlier step" +
      (kept === 1 ? "" : "s") + (item.omitted_history ? " (" + item.omitted_history +
      " older ones left out to fit its budget)" : "");
    var fold = el("details", {class: "fold", id: "history"}, el("summary", {text: summary}));
    if (item.history_left_out) {
      fold.appendChild(el("p", {class: "muted", text: item.history_left_out + " earlier kept steps not listed here."}));
    }
    item.history.forEach(function (step) {
      var block = el("div", {class: "hist-step"}, el("div", {class: "label", text: "Step " + step.step + " \u00b7 " +
        step.source}));
      contentNodes(step.content).forEach(function (node) { if (node) { block.appendChild(node); } });
      fold.appendChild(block);
    });
    panel.appendChild(fold);
    if (state.run.report) {
      panel.appendChild(el("p", {class: "links"}, el("a", {href: "files/report.html", target: "_blank",
        rel: "noopener noreferrer", text: "Open the run's report"})));
    }
  }

  function verdictNodes(judge) {
    var nodes = [];
    var badge = el("span", {class: "badge " + (judge.failed ? "bad" : "good"),
      text: judge.failed ? "fail (below " + judge.failure_threshold + ")" : "pass"});
    nodes.push(el("div", {class: "verdict"}, el("span", {class: "big", id: "judge-score", text: fmt(judge.score)}),
      badge, judge.category ? el("span", {class: "badge neutral", text: CATEGORY_NAMES[judge.category] ||
        judge.category}) : null));
    var names = Object.keys(judge.criterion_scores);
    if (names.length) {
      var grid = el("div", {class: "crit"});
      names.forEach(function (name) {
        var value = judge.criterion_scores[name];
        var fill = el("div", {class: "fill"});
        fill.style.width = Math.max(0, Math.min(1, value)) * 100 + "%";
        grid.appendChild(el("span", {class: "name", text: name}));
        grid.appendChild(el("div", {class: "track"}, fill));
        grid.appendChild(el("span", {class: "num", text: fmt(value)}));
      });
      nodes.push(grid);
    }
    if (judge.repeats) { nodes.push(el("p", {class: "note-line", text: "Repeated verdicts: " +
      judge.repeats.map(function (v) { return fmt(v); }).join(", ")})); }
    nodes.push(textBlock("Rationale", judge.rationale));
    if (judge.categorization_rationale) { nodes.push(textBlock("Why this category", judge.categorization_rationale)); }
    return nodes;
  }

  function renderJudge() {
    var panel = document.getElementById("judge-panel");
    panel.replaceChildren(el("h2", null, "The judge's verdict"));
    if (revealed) {
      var ownFailed = revealed.answer.failed;
      var box = el("div", {class: "reveal", id: "reveal"}, el("p", {class: "match", text: ownFailed === null ?
        "Saved. The judge's verdict on the step you answered:" : (ownFailed === revealed.judge.failed ?
        "Saved. You and the judge agree on pass/fail." : "Saved. You and the judge disagree on pass/fail.")}));
      verdictNodes(revealed.judge).forEach(function (node) { if (node) { box.appendChild(node); } });
      box.appendChild(el("div", {class: "actions"}, el("button", {class: "act primary", id: "next", type: "button",
        onclick: next}, "Next step ", el("kbd", {text: "Enter"}))));
      panel.appendChild(box);
      return;
    }
    if (!state.item) { panel.appendChild(el("p", {class: "muted", text: "Nothing left to show."})); return; }
    if (!state.item.judge) {
      panel.appendChild(el("p", {class: "hidden-verdict", id: "hidden-verdict",
        text: "Hidden until you answer (blind review)."}));
      return;
    }
    verdictNodes(state.item.judge).forEach(function (node) { if (node) { panel.appendChild(node); } });
  }

  function option(label, key, pressed, onclick, extra) {
    return el("button", {class: "opt" + (extra ? " " + extra : ""), type: "button", "aria-pressed": pressed ?
      "true" : "false", onclick: onclick}, label + " ", el("kbd", {text: key}));
  }

  function renderAnswer() {
    var panel = document.getElementById("answer-panel");
    panel.replaceChildren(el("h2", null, "Your answer", el("span", {class: "aside", text: "as " + state.reviewer})));
    var disabled = !state.item || !!revealed;
    panel.appendChild(el("div", {class: "label", text: "Verdict"}));
    panel.appendChild(el("div", {class: "group verdicts"},
      option("Pass", "p", form.failed === false, function () { setFailed(false); }, "pass"),
      option("Fail", "f", form.failed === true, function () { setFailed(true); }, "fail")));
    panel.appendChild(el("div", {class: "label", text: "Score"}));
    var scores = el("div", {class: "group scores"});
    SCORES.forEach(function (value, i) {
      scores.appendChild(option(String(value), String(i + 1), form.score === value, function () { setScore(value); }));
    });
    panel.appendChild(scores);
    panel.appendChild(el("div", {class: "label", text: "Failure category"}));
    var categories = el("div", {class: "group"});
    Object.keys(CATEGORY_KEYS).forEach(function (key) {
      var name = CATEGORY_KEYS[key];
      if (state.taxonomy.indexOf(name) < 0) { return; }
      categories.appendChild(option(CATEGORY_NAMES[name], key, form.category === name, function () {
        setCategory(name); }));
    });
    panel.appendChild(categories);
    panel.appendChild(el("div", {class: "group"},
      option("Decisive step of this failure", "d", form.decisive, toggleDecisive)));
    var note = el("textarea", {id: "note", placeholder: "Note (optional)",
      "aria-label": "Note", maxlength: "4000"});
    note.value = form.note;
    note.addEventListener("input", function () { form.note = note.value; });
    panel.appendChild(note);
    panel.appendChild(el("div", {class: "actions"},
      el("button", {class: "act primary", type: "button", id: "save", onclick: save}, "Save ", el("kbd", {text: "Enter"})),
      el("button", {class: "act", type: "button", id: "skip", onclick: skip}, "Skip ", el("kbd", {text: "s"})),
      el("button", {class: "act", type: "button", id: "undo", onclick: undo}, "Undo ", el("kbd", {text: "u"}))));
    panel.appendChild(el("div", {class: "status", id: "status", role: "status", "aria-live": "polite"}));
    Array.prototype.forEach.call(panel.querySelectorAll("button.opt, textarea, #save, #skip"), function (b) {
      b.disabled = disabled;
    });
    renderStatus();
  }

  function renderStatus() {
    var node = document.getElementById("status");
    if (!node) { return; }
    node.className = "status" + (message.kind ? " " + message.kind : "");
    node.textContent = message.text;
  }

  function wordsClass(text) {
    return text.indexOf("too wide") === 0 ? "too-wide" : text.indexOf("still wide") === 0 ? "wide" :
      text.indexOf("narrow") === 0 ? "narrow" : "";
  }

  function figureTable(rows, id, level) {
    var table = el("table", {class: "fig", id: id},
      el("thead", null, el("tr", null, el("th", {text: "Measure"}), el("th", {class: "num", text: "Value"}),
        el("th", {class: "num", text: Math.round(level * 100) + "% interval"}), el("th", {class: "num", text: "n"}))));
    var body = el("tbody");
    rows.forEach(function (row) {
      var interval = row.low === null || row.high === null ? "\u2014" : fmt(row.low) + " to " + fmt(row.high);
      body.appendChild(el("tr", {class: "main", "data-measure": row.measure},
        el("td", {text: row.measure}),
        el("td", {class: "num value", "data-value": row.value === null ? "null" : String(row.value),
          text: fmt(row.value)}),
        el("td", {class: "num interval", "data-low": row.low === null ? "null" : String(row.low),
          "data-high": row.high === null ? "null" : String(row.high), text: interval}),
        el("td", {class: "num n", text: String(row.n)})));
      body.appendChild(el("tr", {class: "words"}, el("td", {colspan: "4"},
        el("span", {class: "words " + wordsClass(row.trust), text: row.trust}))));
    });
    table.appendChild(body);
    return table;
  }

  function orderNote(orders) {
    var names = Object.keys(orders);
    if (!names.length) { return null; }
    var parts = names.map(function (name) { return orders[name] + " taken " + (name === "lowest" ? "lowest first" :
      name === "contested" ? "contested first" : name === "random" ? "from a seeded random sample" :
      "in an unrecorded order"); });
    var biased = names.some(function (name) { return name !== "random"; });
    return el("p", {class: "note-line", id: "order-note", text: "These figures come from your labels: " +
      parts.join(", ") + ". " + (biased ? "Labels not taken at random describe the steps they were taken from, " +
      "not the run: for figures to quote, label with --order random." :
      "A random sample: the figures estimate the judge's agreement on the whole run.")});
  }

  function renderFigures() {
    var panel = document.getElementById("figures-panel");
    panel.replaceChildren(el("h2", null, "Agreement as it grows",
      el("span", {class: "aside", text: "what tracegrade agree computes"})));
    panel.appendChild(el("p", {class: "note-line", text: "This session's order: " + state.order.description + "."}));
    if (!figures) { panel.appendChild(el("p", {class: "muted", text: "Computing\u2026"})); return; }
    panel.setAttribute("data-labels", String(figures.labels));
    if (figures.error) {
      panel.appendChild(el("p", {class: "status error", text: "The labels file cannot be compared yet: " +
        figures.error}));
      return;
    }
    if (!figures.judge) {
      panel.appendChild(el("p", {class: "muted", id: "no-figures", text: "Answer a step to see your agreement " +
        "with the judge."}));
    } else {
      panel.appendChild(el("div", {class: "label", text: "You and the judge \u00b7 " + figures.labels + " labels"}));
      panel.appendChild(figureTable(figures.judge.rows, "figures-judge", figures.level));
      panel.appendChild(orderNote(figures.orders));
    }
    figures.others.forEach(function (other, i) {
      panel.appendChild(el("div", {class: "label", text: other.reviewer + " and the judge \u00b7 " + other.labels +
        " labels"}));
      panel.appendChild(figureTable(other.judge.rows, "figures-other-" + i, figures.level));
      panel.appendChild(el("div", {class: "label", text: "You and " + other.reviewer + " \u00b7 " +
        other.common_steps + " steps you both labelled"}));
      panel.appendChild(figureTable(other.between, "figures-between-" + i, figures.level));
    });
    panel.appendChild(el("p", {class: "note-line", text: "Intervals: percentile bootstrap over trajectories (" +
      figures.resamples + " resamples, seed " + figures.seed + "), as tracegrade agree --reviewer " +
      figures.reviewer + " reports them."}));
  }

  var HELP = [["p / f", "pass / fail"], ["1\u20135", "score 0, 0.25, 0.5, 0.75, 1"],
    ["t l v r n", "category: tool selection, context loss, policy violation, reasoning, none"],
    ["d", "decisive step of this failure"], ["m", "write a note (Esc leaves it, Ctrl+Enter saves)"],
    ["Enter", "save (then next step, when the verdict was hidden)"], ["s", "skip"], ["u", "undo the last answer or skip"],
    ["h", "fold or unfold the history"], ["?", "show or hide these keys"]];

  function renderHelp() {
    var help = document.getElementById("help");
    if (help.childNodes.length) { return; }
    HELP.forEach(function (pair) {
      help.appendChild(el("span", null, el("kbd", {text: pair[0]})));
      help.appendChild(el("span", {text: pair[1]}));
    });
  }

  // ---------------------------------------------------------------- answers

  function setFailed(value) { if (state.item && !revealed) { form.failed = form.failed === value ? null : value; renderAnswer(); } }
  function setScore(value) { if (state.item && !revealed) { form.score = form.score === value ? null : value; renderAnswer(); } }
  function setCategory(value) { if (state.item && !revealed) { form.category = form.category === value ? null : value; renderAnswer(); } }
  function toggleDecisive() { if (state.item && !revealed) { form.decisive = !form.decisive; renderAnswer(); } }

  var save = turn(function () {
    if (!state.item || revealed) { return; }
    if (form.failed === null && form.score === null && form.category === null && !form.decisive) {
      say("Give a verdict first: pass or fail, a score, a category or the decisive mark.", "error");
      return;
    }
    var answer = {node_id: state.item.node_id, step: state.item.step, failed: form.failed, score: form.score,
                  category: form.category, decisive: form.decisive ? true : null, note: form.note || null};
    var item = state.item;
    setBusy(true);
    api("api/answer", answer).then(function (data) {
      message = {text: "Saved step " + item.step + " of " + (item.trajectory_id || item.node_id) + " (line " +
        data.saved + " of the labels file). u takes it back.", kind: "ok"};
      if (state.blind) {
        revealed = {judge: data.revealed, answer: answer, next: data.state};
        state = Object.assign({}, state, {progress: data.state.progress});
        render();
        loadFigures();
        var button = document.getElementById("next");
        if (button) { button.focus(); }
      } else {
        accept(data.state);
      }
      setBusy(false);
    }).catch(function (error) { say(error.message, "error"); setBusy(false); });
  });

  function next() {
    if (!revealed) { return; }
    var upcoming = revealed.next;
    revealed = null;
    accept(upcoming);
  }

  var skip = turn(function () {
    if (!state.item || revealed) { return; }
    setBusy(true);
    api("api/skip", {node_id: state.item.node_id, step: state.item.step}).then(function (data) {
      message = {text: "Skipped: it comes back at the end.", kind: ""}; accept(data.state); setBusy(false);
    }).catch(function (error) { say(error.message, "error"); setBusy(false); });
  });

  var undo = turn(function () {
    setBusy(true);
    revealed = null;
    api("api/undo", {}).then(function (data) {
      message = {text: data.undone === "skip" ? "Skip taken back." : "Answer taken back (a retraction line was " +
        "appended): answer this step again.", kind: ""};
      accept(data.state);
      setBusy(false);
    }).catch(function (error) { say(error.message, "error"); render(); setBusy(false); });
  });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && target.id === "note") {
      if (event.key === "Escape") { target.blur(); event.preventDefault(); }
      else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { save(); event.preventDefault(); }
      return;
    }
    if (!state || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (target && target.tagName === "BUTTON" && (event.key === "Enter" || event.key === " ")) { return; }
    var key = event.key, handled = true;
    if (revealed) {
      if (key === "Enter" || key === "ArrowRight") { next(); }
      else if (key === "u") { undo(); }
      else { handled = false; }
    } else if (key === "p") { setFailed(false); }
    else if (key === "f") { setFailed(true); }
    else if (key >= "1" && key <= "5") { setScore(SCORES[Number(key) - 1]); }
    else if (CATEGORY_KEYS.hasOwnProperty(key)) { setCategory(CATEGORY_KEYS[key]); }
    else if (key === "d") { toggleDecisive(); }
    else if (key === "m") { var note = document.getElementById("note"); if (note && !note.disabled) { note.focus(); } }
    else if (key === "Enter") { save(); }
    else if (key === "s") { skip(); }
    else if (key === "u") { undo(); }
    else if (key === "h") { var fold = document.getElementById("history"); if (fold) { fold.open = !fold.open; } }
    else if (key === "?") { var help = document.getElementById("help-panel"); help.hidden = !help.hidden; }
    else { handled = false; }
    if (handled) { event.preventDefault(); }
  });

  load();
})();
{% endraw %}
