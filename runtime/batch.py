"""Batch work on llguidance's threads: every request's rows filled in parallel, in place, and
every request's sampled token committed in parallel (`consume_token_par`), so the host's
per-step cost grows with the slowest matcher rather than with the batch.

Rows belong to (request, speculative position) as the engine lays them out; nothing is
reordered. Requests in a reasoning block, failed, released or listed twice take the small
Python path (reasoning or stop rows). An empty batch returns before touching anything.

Drafted rows come from llguidance's draft call, which consumes the drafts on the request's
matcher and rolls them back; llguidance's mask cache survives that rollback
(docs/llguidance-deviations.md, "Matcher behaviour" 4), so each request records its drafts
(`RequestState.drafting`) and rebuilds its matcher before a token that leaves them, unless
the first rows, computed again after the draft call, had no forced bytes: that mask resets the
cache (`RequestState.settled`), so in free text, numbers and most JSON positions no copy is made.

A matcher in error (an llguidance lexer limit, hit by this request or by another one sharing
its lexer) gets EOS-only rows from llguidance itself, drafts included (rows past the first are
stop rows before the call); its request records the error at its next commit or `terminated`,
so healthy rows pay for no per-row check here.
"""
from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from schemac.runtime.rows import cut_at_masked_drafts, stop_row

if TYPE_CHECKING:
    import torch

    from schemac.runtime.request import RequestState


class MaskFiller:
    """Owns the llguidance executor (threads) and the stop row for one tokenizer."""

    def __init__(self, eos_ids: Sequence[int], vocab_size: int, threads: int | None = None) -> None:
        self.words = (vocab_size + 31) // 32
        self._eos = tuple(eos_ids)
        self._threads = threads
        self._executor: Any = None

    @cached_property
    def stop(self) -> "torch.Tensor":
        """The EOS-only row, built once per engine (a 131k vocabulary takes about a millisecond)."""
        return stop_row(self._eos, self.words)

    @cached_property
    def stop_words(self) -> Any:
        """`stop` as a numpy row, for writes into a bitmask's numpy view."""
        return self.stop.numpy()

    def executor(self) -> Any:
        """llguidance's thread pool, started on first use."""
        if self._executor is None:
            import llguidance

            self._executor = llguidance.LLExecutor(self._threads)
        return self._executor

    def commit(self, entries: "Sequence[tuple[RequestState, Sequence[int]]]") -> list[bool]:
        """`state.commit(tokens)` for every entry; single answer-phase tokens are consumed by
        llguidance in parallel (its threads, without the GIL), the rest one by one."""
        if len({id(state) for state, _ in entries}) < len(entries):
            # one request twice: its deltas must apply in order, so all go one by one
            return [state.commit(tokens) for state, tokens in entries]
        results: list[bool] = [False] * len(entries)
        par: list[tuple[Any, int]] = []
        where: list[int] = []
        for n, (state, tokens) in enumerate(entries):
            matcher = state.parallel_commit(tokens)
            if matcher is None:
                results[n] = state.commit(tokens)
            else:
                par.append((matcher, tokens[0]))
                where.append(n)
        if par:
            self.executor().consume_token_par(par)
            for n, (_, token) in zip(where, par):
                results[n] = entries[n][0].committed_in_parallel(token)
        return results

    def allocate(self, rows: int) -> "torch.Tensor":
        """A reusable CPU int32 bitmask (all allowed), `words` columns per row."""
        import torch

        return torch.full((rows, self.words), -1, dtype=torch.int32)

    def fill(self, bitmask: "torch.Tensor", entries: "Sequence[tuple[RequestState, int, Sequence[int]]]") -> None:
        """Fill each entry's len(drafts)+1 rows from its first row (rows checked by the
        engine: `schemac.runtime.boundary.checked_entries`)."""
        if not entries:
            return
        import llguidance.torch as llt

        executor = self.executor()
        plain: list[tuple[Any, int]] = []
        drafted: list[tuple[Any, int, list[int]]] = []
        plain_owners: list[RequestState] = []
        drafted_owners: list[RequestState] = []
        slow: list[tuple[RequestState, int, Sequence[int]]] = []
        words, stop = bitmask.numpy(), self.stop_words
        stopped: list[int] = []  # rows llguidance leaves unwritten (past an invalid draft or EOS)
        seen: set[int] = set()
        for state, row, drafts in entries:
            draft_list = state.draft_ids(drafts) if len(drafts) else []  # len: an array has no truth value
            matcher = state.parallel_matcher() if id(state) not in seen else None  # one matcher per parallel call
            seen.add(id(state))
            if matcher is None:
                slow.append((state, row, drafts))
            elif not len(drafts):
                plain.append((matcher, row))
                plain_owners.append(state)
            else:
                assert draft_list is not None  # else the request failed: no parallel matcher
                # llguidance would consume an EOS draft and roll back one token too many: rows
                # past EOS stay stop rows, as past a placeholder
                known = next((n for n, t in enumerate(draft_list) if t < 0 or t in self._eos), len(draft_list))
                valid = matcher.validate_tokens(draft_list[:known]) if known else 0
                stopped.extend(range(row + 1, row + len(draft_list) + 1))
                if valid:
                    # llguidance consumes the drafts on the matcher and rolls them back, which
                    # leaves its mask cache stale: the request records them (`drafting`)
                    drafted.append((state.drafting(draft_list[:valid]), row, draft_list[:valid]))
                    drafted_owners.append(state)
                else:
                    plain.append((matcher, row))
                    plain_owners.append(state)
        if stopped:
            words[stopped] = stop  # one copy for the batch, before llguidance overwrites the valid ones
        # llguidance's draft call refuses empty draft lists, so plain rows go in their own call
        if drafted:
            llt.fill_next_token_bitmask_par_with_draft_tokens(executor, drafted, bitmask)
        # every first row last, drafted ones again (the draft call computed theirs before
        # its drafts): a mask computed at the committed state with no forced bytes resets
        # llguidance's one-entry mask cache to that state, so the request need not rebuild its
        # matcher when a later token leaves the drafts (`RequestState.settled`)
        # (a matcher a draft broke keeps the first row it wrote before the break)
        again = list(zip(plain_owners, plain)) + [(state, (m, row)) for state, (m, row, _) in zip(drafted_owners, drafted)
                                                   if not m.is_error()]
        if again:
            llt.fill_next_token_bitmask_par(executor, [entry for _, entry in again], bitmask)
        for state, (matcher, _) in again:
            if not matcher.is_error():
                state.settled(matcher)
        for _, row, draft_list in drafted:
            cut_at_masked_drafts(words, row, draft_list, stop)
        for state, row, drafts in slow:
            state.fill(bitmask, row, drafts, self.stop)
