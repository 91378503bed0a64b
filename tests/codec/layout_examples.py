"""What the declared-layout tests share: the example tiers, one layout of GitHub search results."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from gcxwire.layouts import Field, Layout

# A few examples per twin in the default tier; the slow tier runs the same properties on many more.
EXAMPLES = settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MANY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

REPOS = Layout(
    "search_repositories",
    2,
    (
        Field("id", "integer"),
        Field("full_name", "string"),
        Field("owner.login", "string"),
        Field("owner.type", "string", constant="User"),
        Field("description", ("string", "null")),
        Field("html_url", "string", prefix="https://github.com/"),
        Field("topics", "array", required=False),
    ),
    description="GitHub repository search",
)
