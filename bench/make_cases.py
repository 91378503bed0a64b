# ruff: noqa: E501 -- long string literals are the data itself
"""Write the scorecard cases of gcxwire's own making (bench/cases/gcxwire/).

The shapes follow real MCP tool results (GitHub, Kubernetes, SQL, logs, issue
trackers, chat, package registries); the values are invented but realistic:
nested owner objects, sparse keys, nulls, multi-line text and unicode. Seeded,
so re-running rewrites byte-identical files. Run: python bench/make_cases.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "cases" / "gcxwire"
rng = random.Random(20261130)

USERS = [
    "octocat",
    "mira-dev",
    "j.kowalski",
    "tanaka-hiro",
    "lea_m",
    "dependabot[bot]",
    "sven",
    "aisha-k",
]
LANGS = ["Python", "Go", "TypeScript", "Rust", None, "C++", "Python", "Go"]
TOPICS = [
    "mcp",
    "llm",
    "cli",
    "json",
    "tokenizer",
    "agents",
    "proxy",
    "serialization",
    "grpc",
    "wasm",
]


def iso(day: int, second: int) -> str:
    return f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}T{second // 3600 % 24:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"


def owner(login: str, uid: int, kind: str = "User") -> dict[str, Any]:
    return {
        "login": login,
        "id": uid,
        "node_id": f"MDQ6VXNlcj{uid:07d}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
        "html_url": f"https://github.com/{login}",
        "type": kind,
        "site_admin": False,
    }


def github_search() -> dict[str, Any]:
    names = [
        "fastmcp",
        "mcp-proxy",
        "toon-py",
        "jsonslim",
        "tokenwise",
        "wirecut",
        "gcx-go",
        "rowpack",
        "schema-forge",
        "tabular-llm",
    ]
    items = []
    for i, name in enumerate(names):
        login = rng.choice(USERS[:5] + ["acme-labs", "openstack-ai"])
        org = login in ("acme-labs", "openstack-ai")
        lic = rng.choice(
            [
                {"key": "mit", "name": "MIT License", "spdx_id": "MIT"},
                {"key": "apache-2.0", "name": "Apache License 2.0", "spdx_id": "Apache-2.0"},
                None,
            ]
        )
        stars = rng.randint(3, 48000)
        items.append(
            {
                "id": 700000000 + rng.randint(0, 99999999),
                "name": name,
                "full_name": f"{login}/{name}",
                "private": False,
                "owner": owner(
                    login, rng.randint(1000, 190000000), "Organization" if org else "User"
                ),
                "html_url": f"https://github.com/{login}/{name}",
                "description": rng.choice(
                    [
                        "Fast, Pythonic way to build MCP servers and clients",
                        "A compact wire format for LLM tool results — fewer tokens, same data",
                        None,
                        "Token-efficient tables for agents (TSV with a schema line)",
                        "Proxy that rewrites MCP responses 🚀",
                    ]
                ),
                "fork": i == 7,
                "created_at": iso(rng.randint(0, 300), rng.randint(0, 86399)),
                "updated_at": iso(rng.randint(300, 330), rng.randint(0, 86399)),
                "homepage": rng.choice([None, "", f"https://{name}.dev"]),
                "size": rng.randint(40, 90000),
                "stargazers_count": stars,
                "watchers_count": stars,
                "language": rng.choice(LANGS),
                "forks_count": stars // rng.randint(8, 30),
                "open_issues_count": rng.randint(0, 240),
                "license": lic,
                "topics": rng.sample(TOPICS, rng.randint(0, 4)),
                "default_branch": rng.choice(["main", "main", "master"]),
                "score": 1.0,
            }
        )
    return {"total_count": 1843, "incomplete_results": False, "items": items}


def k8s_pods() -> dict[str, Any]:
    pods = []
    for app, replicas, image in [
        ("checkout", 3, "registry.acme.io/checkout:2.14.1"),
        ("redis", 1, "redis:7.2-alpine"),
        ("worker", 4, "registry.acme.io/worker:2.14.1"),
    ]:
        for _ in range(replicas):
            suffix = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
            restarts = rng.choice([0, 0, 0, 1, 7])
            crashing = app == "worker" and restarts == 7
            started = iso(320, rng.randint(0, 86399))
            state: dict[str, Any] = (
                {
                    "waiting": {
                        "reason": "CrashLoopBackOff",
                        "message": "back-off 5m0s restarting failed container=worker",
                    }
                }
                if crashing
                else {"running": {"startedAt": started}}
            )
            pods.append(
                {
                    "metadata": {
                        "name": f"{app}-7d9f8b6c5-{suffix}" if app != "redis" else "redis-0",
                        "namespace": "shop-prod",
                        "uid": f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-a{rng.getrandbits(12):03x}-{rng.getrandbits(48):012x}",
                        "labels": {"app": app, "pod-template-hash": "7d9f8b6c5"}
                        if app != "redis"
                        else {"app": app, "statefulset.kubernetes.io/pod-name": "redis-0"},
                        "creationTimestamp": started,
                    },
                    "spec": {
                        "nodeName": f"ip-10-0-{rng.randint(1, 3)}-{rng.randint(10, 250)}.eu-west-1.compute.internal",
                        "containers": [
                            {
                                "name": app,
                                "image": image,
                                "resources": {
                                    "requests": {"cpu": "250m", "memory": "256Mi"},
                                    "limits": {"memory": "512Mi"},
                                },
                            }
                        ],
                    },
                    "status": {
                        "phase": "Running",
                        "podIP": f"10.0.{rng.randint(1, 3)}.{rng.randint(2, 254)}",
                        "containerStatuses": [
                            {
                                "name": app,
                                "ready": not crashing,
                                "restartCount": restarts,
                                "image": image,
                                "state": state,
                            }
                        ],
                    },
                }
            )
    return {
        "apiVersion": "v1",
        "kind": "PodList",
        "metadata": {"resourceVersion": "48213377"},
        "items": pods,
    }


def sql_rows() -> list[dict[str, Any]]:
    rows = []
    for i in range(25):
        status = rng.choice(["paid", "shipped", "shipped", "refunded", "pending"])
        rows.append(
            {
                "order_id": 104233 + i,
                "customer_email": f"{rng.choice(['anna', 'li.wei', 'omar', 'j.smith', 'zoë'])}{rng.randint(1, 99)}@example.com",
                "total": round(rng.uniform(4, 420), 2),
                "currency": rng.choice(["EUR", "EUR", "USD", "GBP"]),
                "status": status,
                "items": rng.randint(1, 9),
                "created_at": f"2026-11-{rng.randint(1, 29):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
                "shipped_at": None
                if status in ("paid", "pending", "refunded")
                else f"2026-11-{rng.randint(1, 29):02d}",
                "coupon": rng.choice([None, None, None, "BLACKFRIDAY", "WELCOME10"]),
            }
        )
    return rows


def log_events() -> dict[str, Any]:
    trace = 'Traceback (most recent call last):\n  File "/app/worker/jobs.py", line 88, in run\n    result = handler(payload)\n  File "/app/worker/handlers/invoice.py", line 41, in handle\n    total = sum(line["amount"] for line in payload["lines"])\nKeyError: \'amount\''
    events = []
    for i in range(16):
        level = rng.choice(["INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG"])
        message = {
            "INFO": rng.choice(
                [
                    "job finished in 182 ms",
                    "GET /api/v2/orders?page=3 200 (41 ms)",
                    "scaled pool to 6 workers",
                ]
            ),
            "WARN": "slow query (1.84 s): SELECT * FROM invoices WHERE tenant_id = $1\nhint: add an index on (tenant_id, created_at)",
            "ERROR": trace,
            "DEBUG": "cache miss key=user:4411:prefs ttl=300",
        }[level]
        event: dict[str, Any] = {
            "timestamp": f"2026-11-30T05:{10 + i * 3 // 2:02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z",
            "level": level,
            "service": rng.choice(["api", "worker", "worker", "billing"]),
            "message": message,
            "trace_id": f"{rng.getrandbits(64):016x}" if level != "DEBUG" else None,
            "attributes": {"host": f"pod-{rng.randint(1, 6)}", "version": "2.14.1"},
        }
        if level == "ERROR":
            event["attributes"]["exception"] = "KeyError"
        events.append(event)
    return {
        "query": "service:(api OR worker OR billing) since:30m",
        "events": events,
        "truncated": False,
    }


def issue_tracker() -> dict[str, Any]:
    labels = [
        ("bug", "d73a4a"),
        ("frontend", "1d76db"),
        ("p1", "b60205"),
        ("good first issue", "7057ff"),
        ("perf", "fbca04"),
        ("docs", "0075ca"),
    ]
    titles = [
        "Checkout button stays disabled after coupon removal",
        "Dark mode: chart legend unreadable",
        "Export CSV drops rows with emoji in the name",
        "Slow dashboard load for tenants with >10k projects",
        "Document the webhook retry policy",
        "Crash on iOS 17 when opening an attachment",
        "Search ignores accents (é vs e)",
        "Add keyboard shortcut for ‘assign to me’",
        "Timezone off by one hour after DST change",
        "Rate limit errors are shown as ‘Unknown error’",
        "Sidebar flickers on resize",
        "Invite email links expire too soon",
    ]
    issues = []
    for i, title in enumerate(titles):
        issue: dict[str, Any] = {
            "id": f"ENG-{2301 + i}",
            "title": title,
            "state": rng.choice(["Todo", "In Progress", "In Review", "Done", "Backlog"]),
            "priority": rng.choice([1, 2, 2, 3, 3, 4]),
            "labels": [{"name": n, "color": c} for n, c in rng.sample(labels, rng.randint(0, 3))],
            "created_at": iso(rng.randint(280, 330), rng.randint(0, 86399)),
        }
        if rng.random() < 0.7:
            issue["assignee"] = {
                "name": rng.choice(["Mira Okafor", "Jan Kowalski", "Hiro Tanaka", "Léa Martin"]),
                "email": None if rng.random() < 0.2 else "dev@acme.io",
            }
        if rng.random() < 0.4:
            issue["due_date"] = f"2026-12-{rng.randint(1, 20):02d}"
        if rng.random() < 0.5:
            issue["estimate"] = rng.choice([1, 2, 3, 5, 8])
        if i % 4 == 0:
            issue["description"] = (
                f"Steps to reproduce:\n1. Open the app\n2. {title.lower()}\n\nExpected: works.\nActual: it does not ✗"
            )
        issues.append(issue)
    return {"issues": issues, "pageInfo": {"hasNextPage": True, "endCursor": "Y3Vyc29yOjEy"}}


def chat_messages() -> dict[str, Any]:
    texts = [
        "deploy of 2.14.1 is out 🎉",
        "<@U02LEA> can you look at the flaky test? `test_checkout_coupon` fails 1/20",
        "日本語のドキュメントも更新しました",
        "LGTM 👍\nmerging after CI",
        "שלום! the RTL layout still breaks on Safari",
        "anyone else seeing 502s from the eu-west LB?",
        "yes — rolled back the ingress change, should be fine now",
        "Postmortem draft: https://docs.acme.io/pm/2026-11-29",
        "🙏",
        "standup in 5",
        "Ça marche, merci !",
        "FYI: `make lint` now runs ruff + mypy --strict",
    ]
    users = ["U01MIRA", "U02LEA", "U03HIRO", "U04JAN", "U05AISHA"]
    messages = []
    for i, text in enumerate(texts):
        msg: dict[str, Any] = {
            "type": "message",
            "user": rng.choice(users),
            "text": text,
            "ts": f"{1764480000 + i * 317}.{rng.randint(0, 999999):06d}",
        }
        if rng.random() < 0.5:
            reactions = rng.sample(
                [("tada", 3), ("+1", 5), ("eyes", 1), ("white_check_mark", 2), ("pray", 1)],
                rng.randint(1, 3),
            )
            msg["reactions"] = [
                {"name": n, "count": c, "users": rng.sample(users, min(c, 5))} for n, c in reactions
            ]
        if i in (6, 7):
            msg["thread_ts"] = f"{1764480000 + 5 * 317}.000100"
            msg["parent_user_id"] = "U05AISHA"
        if i == 7:
            msg["edited"] = {"user": msg["user"], "ts": f"{1764480000 + 7 * 317 + 60}.000000"}
        messages.append(msg)
    return {
        "ok": True,
        "channel": "C07ENG",
        "messages": messages,
        "has_more": False,
        "response_metadata": {"next_cursor": ""},
    }


def package_search() -> dict[str, Any]:
    pkgs = [
        (
            "zod",
            "4.1.12",
            "TypeScript-first schema declaration and validation library with static type inference",
        ),
        ("ajv", "8.17.1", "Another JSON Schema Validator"),
        ("yup", "1.7.1", "Dead simple Object schema validation"),
        ("joi", "18.0.1", "Object schema validation"),
        (
            "valibot",
            "1.1.0",
            "The modular and type safe schema library for validating structural data 🤖",
        ),
        (
            "superstruct",
            "2.0.2",
            "A simple and composable way to validate data in JavaScript (and TypeScript).",
        ),
        (
            "@sinclair/typebox",
            "0.34.41",
            "Json Schema Type Builder with Static Type Resolution for TypeScript",
        ),
        ("arktype", "2.1.25", "TypeScript's 1:1 validator, optimized from editor to runtime"),
    ]
    objects = []
    for name, version, desc in pkgs:
        slug = name.lstrip("@").replace("/", "-")
        objects.append(
            {
                "package": {
                    "name": name,
                    "scope": name[1:].split("/")[0] if name.startswith("@") else "unscoped",
                    "version": version,
                    "description": desc,
                    "keywords": rng.sample(
                        ["validation", "schema", "typescript", "json-schema", "types", "parser"],
                        rng.randint(2, 5),
                    ),
                    "date": iso(rng.randint(200, 330), rng.randint(0, 86399)).replace("Z", ".000Z"),
                    "links": {
                        "npm": f"https://www.npmjs.com/package/{name}",
                        "homepage": f"https://{slug}.dev" if rng.random() < 0.6 else None,
                        "repository": f"https://github.com/{slug}/{slug}",
                    },
                    "publisher": {"username": slug[:6] + "bot", "email": f"npm@{slug}.dev"},
                },
                "score": {
                    "final": round(rng.uniform(0.3, 0.95), 6),
                    "detail": {
                        "quality": round(rng.uniform(0.6, 1), 6),
                        "popularity": round(rng.uniform(0.1, 0.99), 6),
                        "maintenance": round(rng.uniform(0.3, 1), 6),
                    },
                },
                "searchScore": round(rng.uniform(10, 100000), 5),
            }
        )
    return {
        "objects": objects,
        "total": 4127,
        "time": "Sun Nov 30 2026 05:41:12 GMT+0000 (Coordinated Universal Time)",
    }


def single_repository() -> dict[str, Any]:
    repo = github_search()["items"][1]
    repo.update(
        {
            "organization": owner("acme-labs", 88124001, "Organization"),
            "visibility": "public",
            "archived": False,
            "disabled": False,
            "is_template": False,
            "has_issues": True,
            "has_projects": False,
            "has_wiki": True,
            "has_pages": False,
            "has_discussions": True,
            "allow_forking": True,
            "web_commit_signoff_required": False,
            "mirror_url": None,
            "pushed_at": iso(331, 4012),
            "clone_url": f"https://github.com/{repo['full_name']}.git",
            "ssh_url": f"git@github.com:{repo['full_name']}.git",
            "subscribers_count": 41,
            "network_count": 212,
            "permissions": {
                "admin": False,
                "maintain": False,
                "push": False,
                "triage": False,
                "pull": True,
            },
            "security_and_analysis": {
                "secret_scanning": {"status": "enabled"},
                "dependabot_security_updates": {"status": "disabled"},
            },
        }
    )
    del repo["score"]
    found: dict[str, Any] = repo
    return found


def weather_hourly() -> list[dict[str, Any]]:
    rows = []
    temp = 6.5
    for hour in range(24):
        temp += rng.uniform(-0.8, 0.9)
        rows.append(
            {
                "time": f"2026-11-30T{hour:02d}:00",
                "temp_c": round(temp, 1),
                "feels_like_c": round(temp - rng.uniform(0.5, 3.5), 1),
                "humidity": rng.randint(62, 97),
                "wind_kph": round(rng.uniform(4, 38), 1),
                "wind_dir": rng.choice(["SW", "WSW", "W", "S"]),
                "precip_mm": rng.choice([0.0, 0.0, 0.0, 0.2, 1.4]),
                "condition": rng.choice(["Light rain", "Overcast", "Partly cloudy", "Drizzle"]),
            }
        )
    return rows


CASES = [
    (
        "01_github_search_repositories",
        "search_repositories",
        "GitHub repository search: 10 items with nested owner and license objects, topics, nulls",
        github_search,
    ),
    (
        "02_k8s_pod_list",
        "list_pods",
        "Kubernetes PodList: 8 pods, deeply nested metadata/spec/status, one CrashLoopBackOff",
        k8s_pods,
    ),
    (
        "03_sql_query_rows",
        "read_query",
        "SQL result: 25 order rows, decimals, timestamps, nulls",
        sql_rows,
    ),
    (
        "04_log_events",
        "search_logs",
        "log search: 16 events with multi-line messages (stack trace), sparse attributes",
        log_events,
    ),
    (
        "05_issue_tracker",
        "list_issues",
        "issue tracker: 12 issues, label objects, sparse assignee/due_date/estimate/description",
        issue_tracker,
    ),
    (
        "06_chat_messages",
        "conversations_history",
        "chat history: 12 messages, unicode (CJK, RTL, emoji), sparse reactions and threads",
        chat_messages,
    ),
    (
        "07_package_search",
        "search_packages",
        "npm registry search: 8 packages, nested package/links/publisher/score objects",
        package_search,
    ),
    (
        "08_single_repository",
        "get_repository",
        "one long GitHub repository object (~50 keys, nested owner/organization/permissions)",
        single_repository,
    ),
    (
        "09_weather_hourly",
        "get_forecast",
        "hourly forecast: 24 flat rows of numbers and short strings (a plain table)",
        weather_hourly,
    ),
]


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, tool, description, make in CASES:
        text = json.dumps(make(), ensure_ascii=False, separators=(",", ":"))
        case = {
            "tool": tool,
            "description": description,
            "source": "gcxwire (invented data, MIT)",
            "input": text,
        }
        (OUT / f"{name}.json").write_text(
            json.dumps(case, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
        )


if __name__ == "__main__":
    main()
