"""The fixed prompt of the warm-up trap canary (reliability.md §4, design.md §4 step 2)."""

from __future__ import annotations

from typing import Final

from advisor.workloads.model import Prompt

# The answer copies the prompt's list twice, so n-gram/prompt-lookup drafts are accepted at a high rate on
# the very first run; repeating it then shows how much a cross-request cache adds on top. Never part of
# the library, so the canary cannot leak into the acceptance or A/B measurements.
_TRAP_TEXT: Final = """Here is the packing list for our family camping weekend. Rewrite it as a numbered list, keeping \
every item exactly as written and in the same order. Then write the complete list a second time, numbered \
again, in reverse order. Do not add any comments.

two-person tent with poles and pegs
three sleeping bags rated to five degrees
inflatable sleeping mats and the foot pump
camping stove with two gas canisters
large cooking pot, frying pan and kettle
reusable plates, mugs and cutlery for three
water container holding ten litres
head torches with spare AAA batteries
first aid kit with plasters and tick tweezers
sun cream, insect repellent and a wide-brimmed hat
rain jackets and waterproof trousers
warm fleece for each person
board games and a pack of cards
map of the national park and a compass
rubbish bags and biodegradable soap"""


def trap_prompt() -> Prompt:
    """The canary prompt; the same text on every call and in every version that keeps this id."""
    return Prompt(id="canary-001", category="canary", text=_TRAP_TEXT, split="canary", source="canary")
