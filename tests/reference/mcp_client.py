#!/usr/bin/env python3
"""`mneme-gate mcp` checked by an MCP client that is not ours: the `mcp` package from PyPI.

The SDK's stdio client starts `mneme-gate mcp`, once in each protocol era it negotiates (the
`initialize` handshake, `mode="legacy"`, and 2026-07-28's `server/discover`, `mode="auto"`), lists
the tools, calls each one (the SDK validates every result against the tool's output schema), and
checks, for every scenario of the suite and a few more queries:

  - memory_search gives the ids and scores of `mneme-gate retrieve`, in the same order;
  - memory_context gives the bytes `mneme-gate context` prints, in its text and its structure;
  - memory_explain gives the document of `mneme-gate explain --format json`;
  - memory_health names the memory file and its SHA-256, and a problem only when there is one;
  - a bad argument is a tool error in the command line's words, and the server keeps serving;
  - an edit of the memory file is served without a restart, and a broken edit keeps the last
    good index serving while memory_health reports the problem.

  tests/reference/mcp_client.py --bin target/debug/mneme-gate [--memory M --scenarios S]
  tests/reference/mcp_client.py --bin target/release/mneme-gate --latency 200 --memory M

--latency N only measures: the median of N memory_search calls, timed in the client, after start.

`mcp` is installed from PyPI into target/mcp-venv (reused when there). Exit: 0 pass, 1 a check
failed, 2 usage or setup error. With MNEME_GATE_OFFLINE=1 a failed install skips the check (exit 0).
"""

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "target" / "mcp-venv"
PACKAGE = "mcp==2.3.0"
ENV = {**os.environ, "MNEME_GATE_GIT": "off", "MNEME_GATE_CACHE": "off", "NO_COLOR": "1"}


def venv_python() -> Path:
    python = VENV / "bin" / "python"
    probe = [str(python), "-c", "import mcp, mcp.client.stdio"]
    if python.exists() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    try:
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PACKAGE], check=True)
        subprocess.run(probe, check=True)
    except subprocess.CalledProcessError as e:
        if os.environ.get("MNEME_GATE_OFFLINE") == "1":
            print(f"mcp_client: skipped: cannot install {PACKAGE} ({e}) and MNEME_GATE_OFFLINE=1")
            sys.exit(0)
        print(f"mcp_client: cannot install {PACKAGE} from PyPI: {e}", file=sys.stderr)
        sys.exit(2)
    return python


failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"  FAIL {what}")


def cli(binary, *args, stdin=None):
    done = subprocess.run([binary, *args], capture_output=True, env=ENV, input=stdin)
    if done.returncode != 0:
        sys.exit(f"mcp_client: mneme-gate {' '.join(args)} exited {done.returncode}:\n{done.stderr.decode()}")
    return done.stdout


def queries_of(binary, memory, scenarios):
    """Every scenario's task and file, from the JSON report of a run, and a few more."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "r.json"
        subprocess.run([binary, "run", "--quiet", "--no-baseline", "--memory", memory, "--scenarios", scenarios,
                        "--json", str(report)], env=ENV, capture_output=True)
        if not report.exists():
            sys.exit("mcp_client: `mneme-gate run` wrote no report")
        scenarios = json.loads(report.read_text())["scenarios"]
    queries = [{"task": s["task"], "file": s["edited_file"]} for s in scenarios]
    queries += [{"task": "", "file": None}, {"task": "the of and", "file": "README.md"},
                {"task": "Übersicht ünïcödé \u2028 line", "file": ".\\services\\payments\\x.py"}]
    return queries


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def session(binary, memory, mode, queries, explain_every):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=binary, args=["mcp", "--memory", memory], env=ENV)
    async with Client(params, mode=mode) as client:
        print(f"  {mode}: protocol {client.protocol_version}, server {client.server_info.name if client.server_info else '?'}")
        tools = {t.name: t for t in (await client.list_tools()).tools}
        check(sorted(tools) == ["memory_context", "memory_explain", "memory_health", "memory_search"], f"{mode}: the tools: {sorted(tools)}")
        check(all(t.output_schema and t.input_schema for t in tools.values()), f"{mode}: every tool has both schemas")

        lines = "".join(json.dumps({"id": str(i), **q}) + "\n" for i, q in enumerate(queries)).encode()
        expected = [json.loads(l) for l in cli(binary, "retrieve", "--memory", memory, "--queries", "-", stdin=lines).splitlines()]
        for i, q in enumerate(queries):
            args = {"task": q["task"]} if q["file"] is None else dict(q)
            search = await client.call_tool("memory_search", args)
            got = [{"id": r["id"], "score": r["score"]} for r in search.structured_content["retrieved"]]
            check(not search.is_error and got == expected[i]["retrieved"], f"{mode}: memory_search {q} gave {got}, retrieve {expected[i]['retrieved']}")
            flags = ["--memory", memory, "--task", q["task"]] + ([] if q["file"] is None else ["--file", q["file"]])
            block = cli(binary, "context", *flags).decode()
            ctx = await client.call_tool("memory_context", args)
            check(not ctx.is_error and text_of(ctx) == block and ctx.structured_content["context"] == block,
                  f"{mode}: memory_context {q} differs from context")
            if i % explain_every == 0:
                doc = json.loads(cli(binary, "explain", "--format", "json", *flags))
                exp = await client.call_tool("memory_explain", args)
                check(not exp.is_error and exp.structured_content == doc, f"{mode}: memory_explain {q} differs from explain --format json")

        health = (await client.call_tool("memory_health", {})).structured_content
        digest = "sha256:" + hashlib.sha256(Path(memory).read_bytes()).hexdigest()
        check(health["content_hash"] == digest and health["problem"] is None and health["pool"] > 0,
              f"{mode}: memory_health: {health}")

        bad = await client.call_tool("memory_search", {"task": 3})
        check(bad.is_error and text_of(bad) == "`task` must be a string, found a number", f"{mode}: a bad argument: {text_of(bad)!r}")
        again = await client.call_tool("memory_search", {"task": queries[0]["task"]})
        check(not again.is_error, f"{mode}: the server serves after an error")


async def reload(binary, memory):
    """An edit is served without a restart; a broken edit keeps the last good index."""
    from mcp import Client, StdioServerParameters

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "project_memory.json"
        shutil.copyfile(memory, copy)
        params = StdioServerParameters(command=binary, args=["mcp", "--memory", str(copy)], env=ENV)
        async with Client(params) as client:
            probe = {"task": "zebra quokka narwhal"}
            before = await client.call_tool("memory_search", probe)
            check(before.structured_content["retrieved"] == [], "reload: the probe retrieves nothing at first")
            data = json.loads(copy.read_text())
            data.setdefault("decisions", []).append({"id": "ZOO-001", "decision": "Zebra quokka narwhal rule"})
            copy.write_text(json.dumps(data))
            after = await client.call_tool("memory_search", probe)
            check([r["id"] for r in after.structured_content["retrieved"]] == ["ZOO-001"], f"reload: the edit is served: {after.structured_content}")
            copy.write_text('{"decisions": [')
            broken = await client.call_tool("memory_search", probe)
            check([r["id"] for r in broken.structured_content["retrieved"]] == ["ZOO-001"], "reload: a broken edit keeps the last good index")
            health = (await client.call_tool("memory_health", {})).structured_content
            check(health["problem"] is not None and "serving the last good version" in health["problem"], f"reload: health reports the problem: {health['problem']}")
            copy.unlink()
            gone = await client.call_tool("memory_context", probe)
            check(not gone.is_error and "ZOO-001" in text_of(gone), "reload: a deleted file keeps the last good index")


async def latency(binary, memory, n):
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=binary, args=["mcp", "--memory", memory], env=ENV)
    args = {"task": "Add a refund endpoint that writes the reversal to the ledger", "file": "services/payments/refunds.py"}
    async with Client(params) as client:
        async def timed(name, arguments):
            for _ in range(10):
                await client.call_tool(name, arguments)
            times = []
            for _ in range(n):
                start = time.perf_counter()
                result = await client.call_tool(name, arguments)
                times.append((time.perf_counter() - start) * 1000)
                if result.is_error:
                    sys.exit(f"mcp_client: {name} failed: {text_of(result)}")
            return sorted(times)

        times = await timed("memory_search", args)
        # The client's and the transport's own cost: a call the server answers without retrieving.
        floor = await timed("memory_health", {})
        protocol = client.protocol_version
    print(json.dumps({"calls": n, "median_ms": statistics.median(times), "min_ms": times[0], "max_ms": times[-1],
                      "floor_median_ms": statistics.median(floor), "protocol": protocol}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="target/debug/mneme-gate")
    parser.add_argument("--memory", default="fixtures/project_memory.json")
    parser.add_argument("--scenarios", default="scenarios")
    parser.add_argument("--latency", type=int, metavar="N")
    parser.add_argument("--in-venv", action="store_true", help=argparse.SUPPRESS)
    a = parser.parse_args()
    binary = str(Path(a.bin).resolve())
    if not Path(binary).exists():
        print(f"mcp_client: no binary at {a.bin}: build it first", file=sys.stderr)
        sys.exit(2)
    if not a.in_venv:
        python = venv_python()
        os.execv(str(python), [str(python), __file__, *sys.argv[1:], "--in-venv"])
    memory = str(Path(a.memory).resolve())
    if a.latency:
        asyncio.run(latency(binary, memory, a.latency))
        return
    queries = queries_of(binary, memory, a.scenarios)
    print(f"mcp_client: {len(queries)} queries on {a.memory}")
    for mode in ("legacy", "auto"):
        asyncio.run(session(binary, memory, mode, queries, explain_every=5))
    asyncio.run(reload(binary, memory))
    if failures:
        print(f"mcp_client: FAIL ({len(failures)} check(s))")
        sys.exit(1)
    print("mcp_client: PASS (memory_search = retrieve, memory_context = context, memory_explain = explain --format json, "
          "health, errors, reload)")


if __name__ == "__main__":
    main()
