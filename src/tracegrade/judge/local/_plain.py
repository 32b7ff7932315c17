"""The local judge's chat template: the messages' text joined by blank lines, with no turn markers.

Why: the bundled Gemma 3 270M is a pretrained (not instruction-tuned) model that continues plain text, while
chat turn markers make it lose the signal of its label probabilities. Non-text content is left out.
"""

from __future__ import annotations

__all__ = ["PLAIN_CHAT_TEMPLATE"]

PLAIN_CHAT_TEMPLATE = (
    "{%- set ns = namespace(separator='') -%}"
    "{%- for message in messages -%}"
    "{%- if message['content'] is string -%}"
    "{{- ns.separator + message['content'] -}}"
    "{%- set ns.separator = '\\n\\n' -%}"
    "{%- endif -%}"
    "{%- endfor -%}"
)
