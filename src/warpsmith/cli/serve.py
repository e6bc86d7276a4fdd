"""`warpsmith serve reward|mcp`: the long-running services."""

from __future__ import annotations

import click


@click.group("serve")
def serve_group() -> None:
    """Run warpsmith as a service: a reward service for RL, an MCP server for coding agents."""


# --- reward service (warpsmith.serve.reward) ------------------------------------------------

from ..serve.shaping import BASELINES, SCALES, RewardConfig  # noqa: E402  (pure: no fastapi)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
REWARD = RewardConfig()  # its defaults, so --help and the API agree


@serve_group.command("reward")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--token", default=None, help="The bearer token clients send "
              "[default: $WARPSMITH_REWARD_TOKEN].")
@click.option("--no-auth", is_flag=True, help="Serve without a token (loopback hosts only).")
@click.option("--executor", "executor_spec", default="inline", show_default=True,
              help="Where verifications run: inline, local (one worker per GPU), local:N "
                   "(N per GPU: they check at once and are timed one at a time), ray, "
                   "ray://ADDRESS.")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default=None,
              help="cuda when a GPU is present, else cpu (correctness only, no timing).")
@click.option("--profile", default="quick", show_default=True, help="quick or thorough.")
@click.option("--db", type=click.Path(dir_okay=False), default=None,
              help="SQLite verdict store [default: $WARPSMITH_DB or "
                   "~/.cache/warpsmith/warpsmith.sqlite].")
@click.option("--tasks", "task_dirs", multiple=True,
              type=click.Path(file_okay=False, exists=True),
              help="A folder of task files clients may name (repeatable), after the built-in.")
@click.option("--allow-task-source", is_flag=True,
              help="Accept task source in requests (it runs unsandboxed in this process).")
@click.option("--allow-no-sandbox", is_flag=True,
              help="Serve even where candidates cannot run in the OS sandbox (bubblewrap): "
                   "verdicts then say `sandbox: none`. Off by default: refuse to start.")
@click.option("--max-body-bytes", default=4 << 20, show_default=True, type=int)
@click.option("--max-items", default=64, show_default=True, type=int, help="Per request.")
@click.option("--per-client", default=4, show_default=True, type=int,
              help="Requests one client (token or X-Client-Id) may have in flight.")
@click.option("--max-queue", default=1024, show_default=True, type=int,
              help="Items queued or running, all clients together (503 beyond).")
@click.option("--retries", default=1, show_default=True, type=int,
              help="Re-queues of an item whose executor failed, before a crashed verdict.")
@click.option("--baseline", type=click.Choice(BASELINES), default=REWARD.baseline,
              show_default=True, help="What the speed part compares against.")
@click.option("--scale", type=click.Choice(SCALES), default=REWARD.scale, show_default=True)
@click.option("--clip", nargs=2, type=float, default=(REWARD.lo, REWARD.hi), show_default=True,
              help="LO HI bounds of the speed term.")
@click.option("--correct-reward", default=REWARD.correct, show_default=True, type=float)
@click.option("--incorrect-reward", default=REWARD.incorrect, show_default=True, type=float,
              help="For a candidate that built but failed (runtime error, wrong, crashed).")
@click.option("--rejected-reward", default=REWARD.rejected, show_default=True, type=float,
              help="For one a rule or a plausibility gate caught; negative punishes.")
@click.option("--speed-weight", default=REWARD.speed_weight, show_default=True, type=float)
@click.option("--no-code-reward", default=REWARD.no_code, show_default=True, type=float,
              help="For a completion with no code in it (status no_code); negative punishes.")
def reward_command(host, port, token, no_auth, executor_spec, device, profile, db, task_dirs,
                   allow_task_source, allow_no_sandbox, max_body_bytes, max_items, per_client,
                   max_queue, retries, baseline, scale, clip, correct_reward, incorrect_reward,
                   rejected_reward, speed_weight, no_code_reward) -> int:
    """Serve verdicts and shaped rewards over HTTP for RL trainers: POST /v1/verify with a
    batch of (task, candidate source or a model's raw completion), or OpenRLHF's
    --remote_rm_url at /v1/openrlhf?token=TOKEN. The API is at /docs and /openapi.json; the
    reward formula in docs/reward-service.md, the trainers' setup in docs/rl.md.

    \b
    Example:
      export WARPSMITH_REWARD_TOKEN=$(openssl rand -hex 16)
      warpsmith serve reward --executor local --port 8000
    """
    from ..config import profile as check_profile
    from ..config import reward_token
    from ..errors import UsageError

    token = token or reward_token()
    if token is None and not no_auth:
        raise UsageError("give a token (--token or $WARPSMITH_REWARD_TOKEN), or --no-auth "
                         "to serve without one on a loopback host")
    if no_auth and token is None and host not in LOOPBACK:
        raise UsageError(f"--no-auth serves anyone who can reach {host}: use a loopback host "
                         "(127.0.0.1) or set a token")
    check_profile(profile)
    _check_port(host, port)
    reward = RewardConfig(baseline=baseline, scale=scale, lo=clip[0], hi=clip[1],
                          correct=correct_reward, incorrect=incorrect_reward,
                          rejected=rejected_reward, speed_weight=speed_weight,
                          no_code=no_code_reward)
    settings = dict(token=token, no_auth=no_auth, max_body_bytes=max_body_bytes,
                    max_items=max_items, per_client=per_client, max_queue=max_queue,
                    retries=retries, device=device, profile=profile,
                    store_path=db, task_dirs=task_dirs,
                    allow_task_source=allow_task_source,
                    require_sandbox=not allow_no_sandbox, reward=reward)
    _serve_reward(host, port, executor_spec, settings)
    return 0


def _check_port(host: str, port: int) -> None:
    """A port already taken is a usage error (one line, exit 2), found before anything
    starts: uvicorn would log it among its INFO lines and exit 3, the code `verify` keeps for
    a verdict this machine could not give."""
    import socket

    from ..errors import UsageError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise UsageError(f"--host {host}: {e}") from e
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            raise UsageError(f"cannot serve on {host}:{port} ({e.strerror}): choose another "
                             "--port, or stop what listens there") from e


def _serve_reward(host: str, port: int, executor_spec: str, settings: dict) -> None:
    from pathlib import Path

    from ..errors import UsageError
    from ..executors import make_executor

    try:  # fastapi and uvicorn are the optional [serve] extra
        import uvicorn

        from ..serve.reward import RewardSettings, create_app
    except ImportError as e:
        raise UsageError(f"`warpsmith serve reward` needs fastapi and uvicorn ({e}): "
                         "pip install 'warpsmith[serve]'") from e
    settings |= {"store_path": Path(settings["store_path"]) if settings["store_path"] else None,
                 "task_dirs": tuple(Path(d) for d in settings["task_dirs"])}
    executor = make_executor(executor_spec)
    try:
        app = create_app(RewardSettings(**settings), executor)
        uvicorn.run(app, host=host, port=port, log_level="info")
    finally:
        executor.close()


# --- MCP server (warpsmith.serve.mcp) -------------------------------------------------------


@serve_group.command("mcp")
def mcp_command() -> int:
    """Serve warpsmith's tools to coding agents (Claude Code, Codex, Cursor) over MCP on
    stdio: list_tasks, show_task, verify_kernel, time_kernel, optimize, find_kernels.

    \b
    The agent starts this command itself; see docs/agents.md for each client's config.
    Example (Claude Code):
      claude mcp add warpsmith -- warpsmith serve mcp
    """
    from ..errors import UsageError

    try:  # the SDK is an optional dependency, and its 1.x API differs
        from ..serve.mcp import serve_stdio
    except ImportError as e:
        raise UsageError(f"`warpsmith serve mcp` needs the MCP Python SDK 2.x ({e}): "
                         "pip install 'warpsmith[serve]' or pip install 'mcp>=2'") from e
    serve_stdio()
    return 0
