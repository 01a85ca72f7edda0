"""The judge's model clients: one for the decisions, and optionally a cheaper one for the step descriptions.

MemGUI-Eval describes every step with a small model and keeps the large one for
the semantic and visual decisions: the descriptions are most of the calls and
the easiest. So the judge has two clients, made through the same provider
resolver as the agent and the user (`guilens.llm.make_client`), on any
provider (`--judge-model openai:...`). Each is made on first need, once, and
remembers why it could not be (no key, a bad base URL): every LLM stage then
says so, and the rules still run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from guilens.judge.calls import JudgeModel

ClientFactory = Callable[[str], JudgeModel]


class _One:
    def __init__(self, model: str, factory: ClientFactory | None, settings: Any, base_url: str | None,
                 option: str) -> None:
        self.model, self.factory, self.settings, self.base_url, self.option = model, factory, settings, base_url, option
        self.client: JudgeModel | None = None
        self.unavailable: str | None = None
        self._tried = False
        self._lock = threading.Lock()

    def get(self) -> JudgeModel | None:
        with self._lock:
            if not self._tried:
                self._tried = True
                try:
                    if self.factory is not None:
                        self.client = self.factory(self.model)
                    else:
                        from guilens.llm import make_client

                        self.client = make_client(self.model, role="judge", cache=True, settings=self.settings,
                                                  base_url=self.base_url, option=self.option)
                except Exception as err:  # MissingAPIKey, a bad base URL: every LLM stage says so
                    self.unavailable = str(err)
            return self.client


class _Clients:
    """The decision client and the description client (the same one unless `describe_model` differs)."""

    def __init__(self, model: str, factory: ClientFactory | None, settings: Any, *,
                 describe_model: str | None = None, base_url: str | None = None) -> None:
        self.model = model
        self.describe_model = describe_model or model
        self._main = _One(model, factory, settings, base_url, "--model")
        self._describe = (self._main if self.describe_model == model
                          else _One(self.describe_model, factory, settings, base_url, "--describe-model"))

    @property
    def unavailable(self) -> str | None:
        return self._main.unavailable or self._describe.unavailable

    def available(self) -> bool:
        """Whether both clients can be made (made now, so the reason is known before any stage runs)."""
        return self._main.get() is not None and self._describe.get() is not None

    def get(self) -> JudgeModel | None:
        """The client for the decisions (triage, semantic, visual, milestones, IRR)."""
        return self._main.get()

    def describer(self) -> JudgeModel | None:
        """The client for the step descriptions."""
        return self._describe.get()
