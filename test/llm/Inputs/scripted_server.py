#!/usr/bin/env python3
# scripted_server.py — an OpenAI-compatible /v1/chat/completions server on
# 127.0.0.1 for the LLM tests. It replays a script of responses, one per
# request, in order, and logs every request it gets (JSON Lines).
#
#   scripted_server.py --script S.json [--log L.jsonl] --port-file P
#       serve until killed (or --lifetime seconds); the port goes to P.
#   scripted_server.py --script S.json [--log L.jsonl] -- CMD ARGS...
#       serve while CMD runs with KS_LLM_URL=http://127.0.0.1:PORT/v1 in its
#       environment; exit with CMD's status (for lit, which has no `&`).
#
# A script is a JSON list; each step is an object:
#   {"content": "text"}                    200, a chat completion with this reply
#   {"content_file": "reply.md"}           the same, text from a file (next to the script)
#   {"usage": [prompt, completion]}        with "content": the usage to report (default [10, 5]);
#                                          "usage": null leaves it out
#   {"raw": "text", "status": 200}         this body as is (garbage, not JSON)
#   {"status": 500}                        an error status with a JSON error body
#   {"status": 429, "retry_after": "1"}    with a Retry-After header
#   {"hang": 30}                           accept, read the request, never answer (seconds)
#   {"echo_auth": true, "status": 401}     an error body that echoes the Authorization header
# After the last step every request gets HTTP 503 ("script exhausted").
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    args = sys.argv[1:]
    cmd = None
    if "--" in args:
        i = args.index("--")
        args, cmd = args[:i], args[i + 1:]
    opts = {"--script": None, "--log": None, "--port-file": None, "--lifetime": "60"}
    while args:
        k = args.pop(0)
        if k not in opts or not args:
            sys.exit(f"scripted_server: bad argument {k!r}")
        opts[k] = args.pop(0)
    if not opts["--script"] or (cmd is None and not opts["--port-file"]):
        sys.exit("usage: scripted_server.py --script S [--log L] (--port-file P | -- CMD...)")
    script_dir = os.path.dirname(os.path.abspath(opts["--script"]))
    with open(opts["--script"]) as f:
        steps = json.load(f)
    lock = threading.Lock()
    state = {"next": 0}
    log_path = opts["--log"]
    stop = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def reply(self, status, body, headers=()):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(n).decode("utf-8", "replace")
            with lock:
                i = state["next"]
                state["next"] += 1
                step = steps[i] if i < len(steps) else None
                if log_path:
                    try:
                        req = json.loads(body)
                    except ValueError:
                        req = body
                    with open(log_path, "a") as f:
                        f.write(json.dumps({"n": i, "path": self.path, "auth": self.headers.get("Authorization"),
                                            "request": req}) + "\n")
            if self.path != "/v1/chat/completions":
                return self.reply(404, json.dumps({"error": {"message": "no such path " + self.path}}))
            if step is None:
                return self.reply(503, json.dumps({"error": {"message": "script exhausted"}}))
            if "hang" in step:
                stop.wait(float(step["hang"]))
                return
            status = int(step.get("status", 200))
            headers = []
            if "retry_after" in step:
                headers.append(("Retry-After", str(step["retry_after"])))
            if step.get("echo_auth"):
                return self.reply(status, json.dumps({"error": {"message": "invalid credentials: " +
                                                                 str(self.headers.get("Authorization"))}}), headers)
            if "raw" in step:
                return self.reply(status, step["raw"], headers)
            if status != 200:
                return self.reply(status, json.dumps({"error": {"message": f"scripted HTTP {status}"}}), headers)
            content = step.get("content")
            if "content_file" in step:
                with open(os.path.join(script_dir, step["content_file"])) as f:
                    content = f.read()
            doc = {"id": f"chatcmpl-{i}", "object": "chat.completion", "created": int(time.time()),
                   "model": step.get("model", "scripted-model"),
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop"}]}
            usage = step.get("usage", [10, 5])
            if usage is not None:
                doc["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                "total_tokens": usage[0] + usage[1]}
            self.reply(200, json.dumps(doc), headers)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if cmd is None:
        tmp = opts["--port-file"] + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, opts["--port-file"])
        time.sleep(float(opts["--lifetime"]))
        stop.set()
        return 0
    env = dict(os.environ)
    env["KS_LLM_URL"] = f"http://127.0.0.1:{port}/v1"
    env.setdefault("KS_LLM_MODEL", "scripted-model")
    rc = subprocess.call(cmd, env=env)
    stop.set()
    server.shutdown()
    return rc


if __name__ == "__main__":
    sys.exit(main())
