"""What every benchmark needs: a release server on a fresh data folder, and a small HTTP client."""
import atexit
import contextlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import tempfile
import shlex
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "disposable")
WORK = os.path.join(ROOT, ".build", "bench")
PODMAN = shlex.split(os.environ.get("PODMAN", "podman"))  # scripts/podman-env's command line


@contextlib.contextmanager
def stage(name: str, seconds: int):
    """Says which stage runs, and fails it (naming it) past `seconds`: a benchmark never hangs silently."""
    print(f"[{time.strftime('%H:%M:%S')}] {name} …", flush=True)

    def overdue(signum, frame):
        raise TimeoutError(f"stage “{name}” took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, overdue)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Server:
    """`disposable serve` on loopback with its own data folder (SQLite + local media folder)."""

    def __init__(self, port: int = 8091, data: str | None = None, env: dict | None = None, binary: str = BINARY):
        self.port, self.binary = port, binary
        self.data = data or tempfile.mkdtemp(prefix="disposable-bench-")
        self.env = dict(os.environ, DISPOSABLE_DATA_DIR=self.data, DISPOSABLE_PORT=str(port), DISPOSABLE_LOG_LEVEL="error",
                        DISPOSABLE_PUBLIC_URL=f"http://127.0.0.1:{port}", **(env or {}))
        self.process = None
        self.started_at = 0.0

    def start(self, wait: bool = True) -> "Server":
        self.started_at = time.perf_counter()
        self.process = subprocess.Popen([self.binary, "serve"], env=self.env)
        atexit.register(self.stop)  # a benchmark that fails leaves no server behind
        if wait:
            self.wait_healthy()
        return self

    def wait_healthy(self, timeout: float = 30, interval: float = 0.002) -> float:
        """Seconds from process start to the first 200 from /healthz."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                connection.request("GET", "/healthz")
                if connection.getresponse().status == 200:
                    return time.perf_counter() - self.started_at
            except OSError:
                pass
            time.sleep(interval)
        raise RuntimeError("the server did not become healthy")

    @property
    def pid(self) -> int:
        return self.process.pid

    def rss_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))

    def stop(self, remove: bool = True):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.process = None
        if remove:
            shutil.rmtree(self.data, ignore_errors=True)

    def client(self) -> "Client":
        return Client(self.port)


class ContainerServer(Server):
    """The same, run from the image scripts/test-container builds (`--container`): podman on the host's
    network, the data folder bind-mounted. `pid` is the server's process as the host sees it, for its CPU time."""

    IMAGE = "localhost/disposable:test"

    def start(self, wait: bool = True) -> "Server":
        self.name = f"disposable-bench-{self.port}"
        os.chmod(self.data, 0o777)  # the image's user (10001) writes there
        settings = [f"--env={key}={value}" for key, value in self.env.items()
                    if key.startswith("DISPOSABLE_") and key != "DISPOSABLE_DATA_DIR"]
        self.started_at = time.perf_counter()
        subprocess.run(PODMAN + ["run", "-d", "--rm", "--name", self.name, "--network=host", *settings,
                                 "-v", f"{self.data}:/var/lib/disposable/data", self.IMAGE], check=True, capture_output=True)
        self.process = True
        atexit.register(self.stop)
        if wait:
            self.wait_healthy()
        return self

    @property
    def pid(self) -> int:
        return int(subprocess.run(PODMAN + ["inspect", "-f", "{{.State.Pid}}", self.name], check=True, capture_output=True,
                                  text=True).stdout)

    def stop(self, remove: bool = True):
        if self.process:
            subprocess.run(PODMAN + ["stop", "-t", "30", self.name], capture_output=True)
            self.process = None
        if remove:
            shutil.rmtree(self.data, ignore_errors=True)


class Client:
    def __init__(self, port: int):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)

    def call(self, method: str, path: str, body=None, token: str | None = None, content_type: str = "application/json",
             expect: tuple = (200, 201)):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if body is not None and not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
        if body is not None:
            headers["Content-Type"] = content_type
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status not in expect:
            raise RuntimeError(f"{method} {path} answered {response.status}: {data[:300]!r}")
        return json.loads(data) if data and response.getheader("Content-Type", "").startswith("application/json") else data


def organizer_and_event(server: Server, **settings) -> tuple[str, dict]:
    """Registers an organizer and creates an event; returns (organizer token, event JSON)."""
    client = server.client()
    email = f"bench-{uuid.uuid4().hex[:8]}@example.org"
    client.call("POST", "/api/v1/users", {"email": email, "password": "benchmark password", "name": "Bench"})
    token = client.call("POST", "/api/v1/sessions", {"email": email, "password": "benchmark password"})["token"]
    event = client.call("POST", "/api/v1/events", {"name": "Benchmark wedding", **settings}, token=token)
    return token, event


def join(server: Server, code: str, name: str) -> str:
    return server.client().call("POST", "/api/v1/join", {"code": code, "name": name, "acceptedTerms": "2026-11"})["token"]


def wrk(url: str, token: str | None = None, connections: int = 64, seconds: int = 10, script: str | None = None) -> dict:
    """Runs wrk (2 threads, like the 2 cores) and returns req/s and latency percentiles in ms."""
    command = ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency"]
    if token:
        command += ["-H", f"Authorization: Bearer {token}"]
    if script:
        command += ["-s", script]
    output = subprocess.run(command + [url], capture_output=True, text=True, check=True).stdout
    result = {"output": output}
    for line in output.splitlines():
        parts = line.split()
        if line.startswith("Requests/sec:"):
            result["rps"] = float(parts[1])
        elif len(parts) == 2 and parts[0] in ("50%", "99%"):
            result[parts[0]] = milliseconds(parts[1])
        elif "Non-2xx" in line:
            result["errors"] = int(parts[-1])
    return result


def milliseconds(text: str) -> float:
    for unit, factor in (("us", 0.001), ("ms", 1), ("s", 1000)):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * factor
    return float(text)
