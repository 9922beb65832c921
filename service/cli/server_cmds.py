"""`kiln serve` and `kiln worker`."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import signal
import subprocess
import sys

from rich.console import Console

from service.settings import get_settings

console = Console(stderr=True)
log = logging.getLogger("kiln.cli")

DEFAULT_STEP = "worker.gpu_step:GpuTuningStep"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the API (SQLite in KILN_DATA_DIR unless KILN_DATABASE_URL is set)")
    p.add_argument("--host", default=None)
    p.add_argument("--port", type=int, default=None)
    p.add_argument("--no-migrate", action="store_true", help="don't run `db upgrade` at start")
    p.add_argument("--workers", type=int, default=1, help="API processes (uvicorn workers); one is plenty for SQLite")
    p.set_defaults(func=serve)

    w = sub.add_parser("worker", help="lease jobs from KILN_SERVER_URL and tune them on a GPU")
    w.add_argument("--gpu", type=int, default=0, help="GPU index this worker drives")
    w.add_argument("--gpus", default=None, metavar="all|0,1,...",
                   help="one worker process per GPU (supervised, restarted when it dies)")
    w.add_argument("--name", default=None)
    w.add_argument("--step", default=DEFAULT_STEP, help=argparse.SUPPRESS)  # module:Class of the tuning step
    w.add_argument("--max-jobs", type=int, default=None, help="exit after this many jobs")
    w.add_argument("--exit-when-idle", action="store_true", help="exit when the queue has nothing for this worker")
    w.add_argument("--idle-sleep", type=float, default=0.5)
    w.set_defaults(func=worker)


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from service import auth
    from service.api.app import create_app
    from service.db.engine import open_database
    from service.db.migrate import upgrade
    from worker.device import visible_gpus

    settings = get_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    url = settings.resolved_database_url
    if not args.no_migrate:
        upgrade(url)
    db = open_database(url)
    with db.transaction() as session:
        minted = auth.bootstrap_admin_token(session, path=settings.admin_token_path, configured=settings.token)
    if minted:
        console.print(f"[bold]kiln[/]: created an admin token in {settings.admin_token_path} (mode 0600); "
                      "`kiln token create --scope submit` makes more")
    console.print(f"[bold]kiln[/]: database {db.dialect} ({_redact(url)}); data dir {settings.data_dir.resolve()}")
    host = args.host or settings.host
    port = args.port or settings.port
    local: subprocess.Popen | None = None
    gpus = visible_gpus() if settings.local_worker == "auto" else []
    if gpus:
        token = settings.token or settings.admin_token_path.read_text().strip()
        env = {**os.environ, "KILN_SERVER_URL": f"http://{host}:{port}", "KILN_TOKEN": token}
        local = subprocess.Popen([sys.executable, "-m", "service.cli.main", "worker", "--gpu", "0"], env=env)
        console.print(f"[bold]kiln[/]: GPU {gpus[0].gpu_name} visible: started a local worker (pid {local.pid})")
    else:
        console.print("[bold]kiln[/]: no GPU visible: serving and queueing; jobs wait for a `kiln worker` on a GPU host")
    try:
        if args.workers > 1:
            db.dispose()
            uvicorn.run("service.api.app:create_app", factory=True, workers=args.workers, host=host, port=port,
                        log_level="info", access_log=False)
        else:
            uvicorn.run(create_app(settings, db), host=host, port=port, log_level="info", access_log=False)
    finally:
        if local is not None:
            local.send_signal(signal.SIGTERM)
            local.wait(timeout=30)
    return 0


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def load_step(spec: str, gpu: int) -> object:
    module_name, _, cls_name = spec.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, cls_name)(gpu_index=gpu)


def worker(args: argparse.Namespace) -> int:
    from service.client import default_token
    from worker.client import ServiceClient, ServiceRefused
    from worker.loop import Worker, WorkerOptions

    settings = get_settings()
    if args.gpus:
        return _supervise(args)
    try:
        step = load_step(args.step, args.gpu)
    except (ImportError, RuntimeError) as exc:
        console.print(f"[red]kiln worker[/]: cannot start the tuning step: {exc}")
        return 2
    client = ServiceClient(settings.server_url, default_token(settings))
    name = args.name or f"gpu{args.gpu}"
    options = WorkerOptions(name=name, idle_sleep=args.idle_sleep, max_jobs=args.max_jobs,
                            exit_when_idle=args.exit_when_idle)
    w = Worker(client, step, options)  # type: ignore[arg-type]
    signal.signal(signal.SIGTERM, lambda *_: w.request_stop())
    try:
        done = w.run()
    except KeyboardInterrupt:
        return 130
    except ServiceRefused as exc:  # a 4xx the worker cannot act on: say the service's reason, not a traceback
        console.print(f"[red]kiln worker[/]: the service refused: {exc}")
        return 2
    finally:
        client.close()
    log.info("worker %s exiting after %d job(s)", name, done)
    return 0


def _supervise(args: argparse.Namespace) -> int:
    from worker.device import visible_gpus
    from worker.supervisor import Supervisor, parse_gpus

    try:
        gpus = parse_gpus(args.gpus, len(visible_gpus()) if args.gpus == "all" else 0)
    except ValueError as exc:
        console.print(f"[red]kiln worker[/]: {exc}")
        return 2
    extra = ["--step", args.step, "--idle-sleep", str(args.idle_sleep)]
    if args.max_jobs is not None:
        extra += ["--max-jobs", str(args.max_jobs)]
    if args.exit_when_idle:
        extra.append("--exit-when-idle")
    return Supervisor(gpus, extra, name_prefix=(args.name or "gpu")).run()
