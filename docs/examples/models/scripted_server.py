#!/usr/bin/env python3
"""A stand-in for a model server, to record this example's cassettes without
a model: an OpenAI-compatible /v1/chat/completions on 127.0.0.1 that keeps
the decisions when they come as a system message (the governed arm) and
breaks them when they do not (the control arm). Not a model, a script.

    python3 docs/examples/models/scripted_server.py PORT
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def answer(body):
    messages = body.get("messages", [])
    governed = bool(messages) and messages[0].get("role") == "system"
    if "response_format" in body:
        if governed:
            content = {"refused": False, "files_changed": ["services/payments/refunds.py"],
                       "dependencies_added": [], "text": "LedgerClient.post(Reversal(payment_id, amount))"}
        else:
            content = {"refused": False, "files_changed": ["services/payments/refunds.py"],
                       "dependencies_added": ["psycopg2"], "text": "conn = psycopg2.connect(DSN)"}
        content = json.dumps(content)
    else:
        content = ("Render the price in a server component: <Price amount={product.price} />"
                   if governed else "Fetch the price in a client component with useEffect and useState.")
    prompt = sum(len(m.get("content", "")) for m in messages)
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
        "model": "scripted-1", "system_fingerprint": "fp_scripted",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt // 4, "completion_tokens": len(content) // 4,
                  "total_tokens": prompt // 4 + len(content) // 4},
    }


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        data = json.dumps(answer(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
