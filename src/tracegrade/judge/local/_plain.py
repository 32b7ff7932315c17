"""The local judge's chat template: the messages' text joined by blank lines, with no turn markers.

The bundled Gemma 3 270M is a pretrained (not instruction-tuned) model and its GGUF file carries no chat
template: it continues plain text, while Gemma's chat turn markers make it start over (measured: its label
probabilities lost all signal inside chat turns). The server applies this Jinja template to every chat
request, so the model sees the text of the messages, in order, separated by one blank line (llama.cpp joins
a message's list of text parts into one string before the template runs; other content is left out), and
the beginning-of-text token the model adds itself.
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
