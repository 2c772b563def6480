"""Multi-rank admission over torch.distributed: two CPU processes on gloo.

Every rank checks the fingerprint, its LM head and compiles; any rank's failure rejects the
request on all ranks with that rank's diagnostic and leaves no live state; a release named on
one rank reaches every rank.
"""
from __future__ import annotations

import json
import multiprocessing as mp
import sys
from pathlib import Path

import schemac

VOCAB = 1000 + 3000


def _rank_main(rank: int, world: int, rdv: str, out: str) -> None:
    import torch.distributed as dist

    import schemac
    from schemac.runtime import AdmissionError, Engine, RequestOptions, tekken_tokenizer
    from schemac.runtime.distributed import DistributedAdmission

    from datetime import timedelta

    # a bounded timeout: ranks that diverge fail the test instead of hanging it
    dist.init_process_group("gloo", init_method=f"file://{rdv}", rank=rank, world_size=world, timeout=timedelta(seconds=60))
    results: dict[str, object] = {}
    try:
        hf = tekken_tokenizer(vocab_size=VOCAB)
        good = Engine.from_hf(hf, lm_head_size=VOCAB)
        fp = good.tokenizer.fingerprint
        art = schemac.compile({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})

        def attempt(name: str, engine: Engine, options: RequestOptions) -> None:
            admission = DistributedAdmission(engine)
            try:
                state = admission.admit(name, art, options)
                results[name] = {"ok": True, "ready": state.ready(), "active": engine.active}
                ids = hf.encode('{"n": 1}', add_special_tokens=False)
                results[name]["commit"] = state.commit(ids) and state.is_accepting()
                released = admission.release([name] if rank == 0 else [])  # only rank 0 saw the cancel
                results[name].update(released=released, live=engine.active, terminated=state.terminated)
            except AdmissionError as exc:
                results[name] = {"ok": False, "code": exc.code, "message": exc.message, "active": engine.active}

        attempt("all-good", good, RequestOptions(fp))
        # rank 1's LM head is narrower than the vocabulary
        attempt("narrow-head", good if rank == 0 else Engine.from_hf(hf, lm_head_size=VOCAB - 1), RequestOptions(fp))
        # rank 1 was deployed with an extra stop token: its fingerprint differs
        attempt("fingerprint", good if rank == 0 else Engine.from_hf(hf, lm_head_size=VOCAB, stop_token_ids=[3]), RequestOptions(fp))
        # a grammar only rank 0 cannot compile (rank 0's parser limits are too small)
        import llguidance

        tight = Engine.from_hf(hf, lm_head_size=VOCAB, parser_limits=llguidance.LLParserLimits(max_grammar_size=10))
        attempt("compile", tight if rank == 0 else good, RequestOptions(fp))
        diverging(rank, good, art, RequestOptions(fp), results)
    finally:
        Path(out).write_text(json.dumps(results))
        dist.destroy_process_group()


def diverging(rank: int, engine, art, options, results: dict) -> None:
    """An unexpected exception on one rank, duplicate ids, release through the state."""
    from schemac.runtime import AdmissionError
    from schemac.runtime.distributed import DistributedAdmission

    class Flaky(type(engine)):  # rank 1's engine raises something no one anticipated
        def admit(self, *args, **kw):
            raise RuntimeError("injected")

    flaky = Flaky(engine.tokenizer, engine.lm_head_size) if rank == 1 else engine
    admission = DistributedAdmission(flaky)
    log: list = []
    for name in ("boom", "after-boom"):
        try:
            admission.engine = flaky if name == "boom" else engine
            admission.admit(name, art, options)
            log.append([name, "ok"])
        except AdmissionError as exc:
            log.append([name, exc.code, exc.message])
    first = admission.admit("dup", art, options)
    try:
        admission.admit("dup", art, options)
        log.append(["dup", "ok"])
    except AdmissionError as exc:
        log.append(["dup", exc.code, exc.message])
    log.append(["first-alive", not first.terminated, admission.states.get("dup") is first])
    if rank == 0:
        first.release()  # through the state's own API, on one rank only
    log.append(["table", sorted(admission.states)])
    try:
        admission.admit("dup", art, options)  # rank 1 still holds it: refused everywhere
        log.append(["readmit", "ok"])
    except AdmissionError as exc:
        log.append(["readmit", exc.code, exc.message])
    admission.release(["after-boom", "dup"])
    log.append(["end", sorted(admission.states), engine.active])
    results["diverging"] = log


def test_two_ranks_agree_on_admission_and_release(tmp_path):
    ctx = mp.get_context("spawn")
    world = 2
    outs = [tmp_path / f"rank{r}.json" for r in range(world)]
    procs = [ctx.Process(target=_rank_main, args=(r, world, str(tmp_path / "rdv"), str(outs[r]))) for r in range(world)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(600)
        assert p.exitcode == 0
    r0, r1 = (json.loads(o.read_text()) for o in outs)
    for res in (r0, r1):
        good = res["all-good"]
        assert good["ok"] and good["ready"] and good["commit"]
        assert good["released"] == ["all-good"] and good["terminated"]  # rank 0's release reached rank 1
        assert res["narrow-head"]["code"] == "vocab-mismatch" and res["narrow-head"]["message"].startswith("rank 1:")
        assert res["fingerprint"]["code"] == "tokenizer-mismatch" and res["fingerprint"]["message"].startswith("rank 1:")
        assert res["compile"]["code"] == "grammar-compile" and res["compile"]["message"].startswith("rank 0:")
    assert r0["narrow-head"]["active"] == 0 and r1["compile"]["active"] == 0  # healthy ranks released their state
    # an unexpected exception on rank 1 is a failure both ranks agree on, and they stay in step
    for res, rank in ((r0, 0), (r1, 1)):
        log = {entry[0]: entry[1:] for entry in res["diverging"]}
        assert log["boom"] == ["rank-exception", "rank 1: RuntimeError: injected"]
        assert log["after-boom"] == ["ok"]
        assert log["dup"][0] == "duplicate-request-id" and log["dup"][1].startswith("rank 0:")
        assert log["first-alive"] == [True, True]  # the refused duplicate left the first alone
        assert log["table"] == [["after-boom"] if rank == 0 else ["after-boom", "dup"]]
        assert log["readmit"][0] == "duplicate-request-id" and log["readmit"][1].startswith("rank 1:")
        assert log["end"] == [[], 0]


if __name__ == "__main__":  # spawn re-imports this module by path
    sys.exit(0)


def test_distributed_release_of_one_id_given_as_a_string(tmp_path) -> None:
    """`release("ab")` is a Sequence[str] of the characters: it released requests "a" and "b"
    on every rank and left "ab" live. A string is one id."""
    from datetime import timedelta

    import torch.distributed as dist

    from schemac.runtime import Engine, RequestOptions, tekken_tokenizer
    from schemac.runtime.distributed import DistributedAdmission

    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rdv'}", rank=0, world_size=1,
                            timeout=timedelta(seconds=30))
    try:
        engine = Engine.from_hf(tekken_tokenizer(vocab_size=4000), lm_head_size=4000)
        admission = DistributedAdmission(engine)
        art = schemac.compile({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
        states = {i: admission.admit(i, art, RequestOptions(engine.tokenizer.fingerprint)) for i in ("a", "b", "ab")}
        assert admission.release("ab") == ["ab"]
        assert states["ab"].released and not states["a"].released and not states["b"].released
        assert sorted(admission.states) == ["a", "b"]
        assert admission.release(["a", "b"]) == ["a", "b"] and not admission.states
    finally:
        dist.destroy_process_group()
