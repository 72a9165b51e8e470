"""The evaluator worker: runs approved jobs with the harness (`tools.evaluate`), a bounded number at a time.

It runs inside the server process (`--review-workers N`) or as its own process (`benchtoward worker`); any
number of workers may share one database, because a job is claimed by compare-and-set. A worker stopped on
purpose hands its jobs back; one that died leaves a claim that goes stale (its process is gone, or its
heartbeat is older than `store.leases.STALE_SECONDS`) and is claimed again. Either way the run resumes through the
harness's resume: items already answered are read from the cache, never asked again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from pathlib import Path

from store import jobs as job_store
from store import leases
from store import models as model_store
from store.jobs import Job
from tools.audit import append
from tools.errors import AppError
from tools.eval_plan import EvalOutcome, EvalRequest
from tools.evaluate import evaluate
from tools.maintainers import Actor
from tools.registry import Registry

log = logging.getLogger("benchtoward.worker")
EVALUATOR = Actor("evaluator")
POLL_SECONDS = 2.0


class JobWorker:
    """Claims queued (or stale) jobs and runs them, at most `slots` at once."""

    def __init__(
        self,
        registry: Registry,
        *,
        data: Path | None = None,
        cache_root: Path | None = None,
        slots: int = 1,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.registry = registry
        self.data, self.cache_root = data, cache_root
        self.slots, self.poll_seconds = max(1, slots), poll_seconds
        self.owner = leases.process_holder(secrets.token_hex(4))
        self._wake = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()
        self._deferred: dict[int, float] = {}  # job id → when to look at it again (its key is computed elsewhere)

    def wake(self) -> None:
        """Look for work now (a job was just approved in this process)."""
        self._wake.set()

    async def run_forever(self) -> None:
        await self.run(exit_when_idle=False)

    async def drain(self) -> None:
        """Run until no job is left to claim and none is running (`benchtoward worker --exit-when-idle`)."""
        await self.run(exit_when_idle=True)

    async def run(self, exit_when_idle: bool) -> None:
        try:
            while True:
                self._wake.clear()
                await self.fill()
                if exit_when_idle and not self._running and not self._deferred:
                    return
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_seconds)
        finally:
            await self.stop()

    async def stop(self) -> None:
        """Cancel the running jobs; each hands its claim back before this returns."""
        for task in self._running:
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        self._running.clear()

    async def fill(self) -> None:
        while len(self._running) < self.slots:
            job = await self.claim_next()
            if job is None:
                return
            task = asyncio.create_task(self.run_job(job), name=f"job-{job.id}")
            self._running.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._wake.set()

    async def claim_next(self) -> Job | None:
        now = time.monotonic()
        self._deferred = {job_id: at for job_id, at in self._deferred.items() if at > now}
        for job in job_store.open_jobs(self.registry.store):
            if job.id in self._deferred or not leases.takeable(leases.JOBS, job):
                continue
            if await job_store.claim(self.registry.store, job, self.owner):
                log.info("job %d claimed: %s on %s", job.id, job.model_slug, job.task_ref)
                return job_store.get_job(self.registry.store, job.id)
        return None

    async def heartbeat(self, job_id: int) -> None:
        """Beat until cancelled, or until the job was taken over (the new holder reports; this run's end is
        then not recorded, and the run itself is guarded by its own claim)."""
        while True:
            await asyncio.sleep(leases.HEARTBEAT_SECONDS)
            if not await job_store.heartbeat(self.registry.store, job_id, self.owner):
                log.warning("job %d was taken over by another worker; its end is theirs to record", job_id)
                return

    def request(self, job: Job) -> EvalRequest:
        return EvalRequest(
            model=job.model_slug,
            task=job.task_ref,
            data=self.data,
            cache_root=self.cache_root,
            endpoint=job.endpoint,
            api_key_env=job.api_key_env,
            tier=job.tier,
            resume=True,
        )

    async def run_job(self, job: Job) -> None:
        refused = self.registry.endpoints.refusal(job.endpoint, job.api_key_env)
        if refused is not None:  # queued before the operator's allowlist said otherwise: the key is never read
            await self.finish(job, "failed", None, f"bad_request: {refused}")
            return
        beat = asyncio.create_task(self.heartbeat(job.id))
        try:
            outcome = await evaluate(self.registry, self.request(job))
        except asyncio.CancelledError:
            message = "the worker stopped; the job resumes from its cached items when a worker starts"
            await asyncio.shield(job_store.release(self.registry.store, job.id, self.owner, message))
            raise
        except AppError as error:
            await self.finish(job, "failed", None, f"{error.code}: {error.message}")
            return
        except Exception as error:
            log.exception("job %d failed", job.id)
            await self.finish(job, "failed", None, f"internal error ({type(error).__name__}); see the server log")
            return
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        await self.conclude(job, outcome)

    async def conclude(self, job: Job, outcome: EvalOutcome) -> None:
        if outcome.outcome in ("computed", "existing"):
            message = outcome.message
            if outcome.run_key != job.run_key:
                message += f"; the computed run key {outcome.run_key} differs from the approved {job.run_key}"
            await self.finish(job, "done", outcome.run_id, message)
        elif outcome.outcome == "in_progress":  # another process computes this key: look again later
            await job_store.release(self.registry.store, job.id, self.owner, outcome.message)
            self._deferred[job.id] = time.monotonic() + self.poll_seconds
        else:
            await self.finish(job, "failed", outcome.run_id, outcome.message)

    async def finish(self, job: Job, status: str, run_id: str | None, message: str) -> None:
        """Record the end of a job; a finished run's model goes evaluating → in review."""
        async with self.registry.store.transaction() as db:
            if not await job_store.finish(db, job.id, self.owner, status, run_id, message):
                return  # the claim was taken over meanwhile: the new owner reports
            if status == "done":
                await model_store.write_model_status(db, job.model_slug, "in_review", only_from="evaluating")
            await append(
                db,
                EVALUATOR,
                f"job_{status}",
                f"job:{job.id}",
                "",
                {"proposal": job.proposal_id, "run_id": run_id, "message": message[:500]},
            )
        log.info("job %d %s: %s", job.id, status, message[:200])
