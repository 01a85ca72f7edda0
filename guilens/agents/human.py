"""A person as the agent: actions come through the run's question channel.

The TUI answers `action` requests from its command line and phone view; headless,
`guilens.headless.ConsoleResponder` answers them from standard input, so a
human-expert baseline can be recorded with nothing but a terminal:

    printf 'open notes\\ntap "New note"\\ntype Groceries\\nfinish\\n' | guilens run demo --agent human

What the person types is a command or a JSON action. The commands:
`tap 540 1200`, `tap "Search"`, `tap #3`, `long #3`, `swipe X1 Y1 X2 Y2`,
`scroll down` (shows what is below; `scroll up #12` scrolls element 12's list),
`type hello`, `type --clear "new text"` (replaces what the field holds),
`back`, `home`, `enter`, `delete` (the character before the cursor), `open notes`,
`wait 2`, `ask ...`, `answer 42`, `finish`. `help` (or `?`) lists them. A typo
is answered with what was wrong and asked again; neither costs a step. The
runner's take-over uses the same request, so the two feel the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from guilens.actions import COMMAND_HELP, ActionError, to_command
from guilens.agents.base import AgentContext, AgentStep, StepInput
from guilens.run.resolve import parse_person_action, resolve_action

if TYPE_CHECKING:
    from guilens.config import Settings
    from guilens.control import QuestionChannel, RunControl
    from guilens.device.base import Observation


HELP_WORDS = ("help", "?", "commands")


def ask_person_for_action(
    channel: QuestionChannel,
    control: RunControl | None,
    obs: Observation,
    *,
    prompt: str,
    context: dict[str, Any] | None = None,
    max_tries: int = 20,
    still_wanted: Callable[[], bool] | None = None,
) -> Any:
    """Ask for an action until the person types one that parses; `Cancelled` if the run is cancelled,
    `Withdrawn` if `still_wanted()` turns false while waiting."""
    error = note = ""
    for _ in range(max_tries):
        text = "\n".join(part for part in (error or note, prompt) if part)
        reply = channel.ask(
            "action", text, context={**(context or {}), "error": error or None}, control=control,
            still_wanted=still_wanted,
        )
        error = note = ""
        if reply.strip().lower() in HELP_WORDS:
            note = f"Commands: {COMMAND_HELP}"
            continue
        try:
            action = parse_person_action(reply, obs.size)
            resolve_action(action, obs)  # a target not on screen is a typo too: ask again
            return action
        except ActionError as err:
            error = f"not an action: {err}"
    raise ActionError(f"no valid action after {max_tries} tries; commands: {COMMAND_HELP}")


class HumanAgent:
    """Every step is a person's decision; the thought is left empty, the description is the command."""

    name = "human"
    model: str | None = None
    is_human = True
    """The runner records this agent's steps as `by: human`."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        channel: QuestionChannel | None = None,
        control: RunControl | None = None,
    ) -> None:
        if channel is None:
            raise ValueError("the human agent needs the run's question channel")
        self.channel = channel
        self.control = control
        self.context: AgentContext | None = None

    def reset(self, context: AgentContext) -> None:
        self.context = context

    def step(self, inp: StepInput) -> AgentStep:
        ctx = self.context
        lines = []
        if ctx is not None and inp.index == 0:
            lines.append(f"Task: {ctx.instruction}")
            lines.append("Type a command (help lists them): tap #N, type [--clear] TEXT, scroll down, delete, ...")
        if inp.last_error:
            lines.append(f"The last action was rejected: {inp.last_error}")
        elif inp.last_result:
            lines.append(f"Last action: {inp.last_result}")
        if inp.user_answer is not None:
            lines.append(f"The user answered: {inp.user_answer}")
        lines.append(f"Step {inp.index + 1} ({inp.budget_left} left) on {inp.observation.app or 'the launcher'}: your action?")
        action = ask_person_for_action(
            self.channel,
            self.control,
            inp.observation,
            prompt="\n".join(lines),
            context={"step": inp.index, "by": "agent"},
        )
        return AgentStep(action=action, description=to_command(action))
