"""The one retry loop every provider's calls go through, leaving a `Retry` for each failed try.

Why by hand instead of the SDKs' `max_retries` (both SDK clients are made with
`max_retries=0`; their typed errors still classify every failure):
- every retry must be recorded with its cause on the step that paid for it,
  and the SDKs retry silently (one log line);
- a 200 whose JSON body is cut short, or is not a reply at all, is outside the
  SDKs' retry policies (they do not validate replies by default), yet it is as
  transient as a 503: here it is retried like one;
- the SDKs wait whatever `retry-after` asks (up to 49 days); guilens caps it
  (`max_retry_after`), and their fixed 0.5-8 s backoff cannot be shortened for
  tests.
So the loop is here, once: the agent, the llm user and the judge get the same
retries on every provider, and none of them retries on its own.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from guilens.episode_model import Retry
from guilens.llm.errors import LLMUnavailable, count_causes
from guilens.llm.providers.base import Provider, Reply

log = logging.getLogger("guilens.llm")


def retry_after(headers: Any) -> float | None:
    """Seconds a `retry-after-ms` / `retry-after` header (seconds or an HTTP date) asks for, or None."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            when = email.utils.parsedate_tz(value)
            if when is not None:
                return max(0.0, email.utils.mktime_tz(when) - time.time())
    return None


@dataclass
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, headers: Any) -> float:
        """What `retry-after` asks (capped), else an exponential backoff with jitter."""
        asked = retry_after(headers)
        if asked is not None:
            return min(asked, self.max_retry_after)
        backoff = min(self.max_delay, self.base_delay * 2**attempt)
        return backoff * (0.5 + random.random() / 2)


def send_with_retries(
    provider: Provider,
    body: dict[str, Any],
    *,
    who: str,
    role: str,
    policy: RetryPolicy,
    on_try: Callable[[], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[Reply, list[Retry]]:
    """Send `body` until a try answers; the reply and the failed tries before it.

    A failure the provider calls fatal (a refused request, a rejected key) raises its `LLMError` at
    once; retryable ones are tried again up to `policy.max_retries` times, then `LLMUnavailable`.
    Either error carries every failed try in `.retries`.
    """
    retries: list[Retry] = []
    while True:
        if on_try is not None:
            on_try()
        try:
            return provider.send(body), retries
        except Exception as err:
            failure = provider.classify(err, who)
            if failure is None:
                raise
        if not failure.retryable:
            fatal = failure.fatal
            assert fatal is not None
            fatal.retries = [*retries, *fatal.retries]
            raise fatal from None
        attempt = len(retries)
        if attempt >= policy.max_retries:
            retries.append(Retry(kind="api", cause=failure.cause, role=role))
            raise LLMUnavailable(
                f"{who}: {provider.where} failed; gave up after {attempt + 1} "
                f"{'try' if attempt == 0 else 'tries'}: {count_causes([r.cause for r in retries])}",
                status=failure.status, retries=retries,
            ) from None
        delay = policy.delay(attempt, failure.headers)
        retries.append(Retry(kind="api", cause=failure.cause, role=role, wait_s=round(delay, 3)))
        log.info("%s: %s; retry %d/%d in %.2f s", who, failure.cause, attempt + 1, policy.max_retries, delay)
        sleep(delay)
