"""What can be checked of docker/ without a Docker engine: paths, commands, compose wiring."""

from __future__ import annotations

import re
import shlex

import yaml

from service.cli.main import build_parser
from tests.conftest import REPO


def _cmd(line: str) -> list[str]:
    return yaml.safe_load(line.removeprefix("CMD").strip())


def test_dockerfiles_copy_existing_paths_and_run_real_commands() -> None:
    for name in ("Dockerfile.api", "Dockerfile.worker"):
        text = (REPO / "docker" / name).read_text()
        for src in re.findall(r"^COPY (\S+)", text, re.M):
            assert (REPO / src).exists(), f"{name}: COPY {src} does not exist"
        cmd = _cmd(next(line for line in text.splitlines() if line.startswith("CMD")))
        assert cmd[0] == "kiln"
        build_parser().parse_args(cmd[1:])


def test_compose_services_and_commands() -> None:
    compose = yaml.safe_load((REPO / "docker" / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "migrate", "api", "worker-gpu0"} <= set(services)
    for svc in services.values():
        if "build" in svc:
            assert (REPO / "docker" / svc["build"]["context"] / svc["build"]["dockerfile"]).exists()
        if isinstance(svc.get("command"), list) and svc["command"][0] == "kiln":
            build_parser().parse_args(svc["command"][1:])
    assert services["api"]["environment"]["KILN_DATABASE_URL"].startswith("postgresql+psycopg://")


def test_readme_has_exactly_the_two_setup_commands() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    commands = [shlex.split(line)[0:2] for line in block.splitlines()[1:] if line.strip() and not line.startswith("#")]
    assert commands == [["make", "serve"], ["make", "test"]]
