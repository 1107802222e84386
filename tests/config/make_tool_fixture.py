"""Writes tools-1000.json: 1,000 real-looking tool definitions (25 services x 40 tools) that the
tool-search tests of the three languages share, with the named queries they rank.

Deterministic: run it again and the file is the same. `python3 tests/config/make_tool_fixture.py`
"""

import json
import pathlib

SERVICES = {
    "github": ("GitHub", ["repository", "issue", "pull_request", "branch", "commit", "release", "workflow", "gist"]),
    "gitlab": ("GitLab", ["project", "merge_request", "pipeline", "issue", "runner", "tag", "snippet", "member"]),
    "slack": ("Slack", ["channel", "message", "user", "reaction", "reminder", "file", "emoji", "thread"]),
    "jira": ("Jira", ["issue", "sprint", "board", "epic", "comment", "worklog", "project", "version"]),
    "gmail": ("Gmail", ["email", "draft", "label", "thread", "attachment", "filter", "contact", "signature"]),
    "gcal": ("Google Calendar", ["event", "calendar", "attendee", "reminder", "availability", "room", "invite", "timezone"]),
    "gdrive": ("Google Drive", ["file", "folder", "permission", "revision", "comment", "shortcut", "shared_drive", "export"]),
    "s3": ("Amazon S3", ["bucket", "object", "policy", "lifecycle_rule", "presigned_url", "multipart_upload", "tag", "inventory"]),
    "postgres": ("PostgreSQL", ["table", "query", "index", "schema", "role", "backup", "extension", "view"]),
    "stripe": ("Stripe", ["customer", "invoice", "payment_intent", "subscription", "refund", "product", "price", "payout"]),
    "salesforce": ("Salesforce", ["lead", "opportunity", "account", "contact", "case", "campaign", "report", "dashboard"]),
    "zendesk": ("Zendesk", ["ticket", "agent", "macro", "group", "organization", "satisfaction_rating", "view", "trigger"]),
    "notion": ("Notion", ["page", "database", "block", "comment", "user", "template", "property", "workspace"]),
    "linear": ("Linear", ["issue", "cycle", "team", "project", "label", "roadmap", "attachment", "comment"]),
    "k8s": ("Kubernetes", ["pod", "deployment", "service", "namespace", "configmap", "secret", "node", "ingress"]),
    "docker": ("Docker", ["container", "image", "volume", "network", "compose_stack", "registry", "log", "build"]),
    "weather": ("Weather", ["forecast", "current_conditions", "alert", "air_quality", "radar", "historical_data", "uv_index", "pollen_count"]),
    "maps": ("Maps", ["route", "place", "geocode", "distance_matrix", "elevation", "timezone", "street_view", "traffic"]),
    "twilio": ("Twilio", ["sms", "call", "phone_number", "recording", "conference", "verification", "fax", "queue"]),
    "shopify": ("Shopify", ["order", "product", "customer", "inventory_level", "discount", "fulfillment", "collection", "theme"]),
    "hubspot": ("HubSpot", ["deal", "contact", "company", "ticket", "note", "task", "pipeline", "form"]),
    "datadog": ("Datadog", ["monitor", "dashboard", "metric", "incident", "slo", "log_query", "downtime", "synthetic_test"]),
    "pagerduty": ("PagerDuty", ["incident", "schedule", "escalation_policy", "service", "oncall", "alert", "maintenance_window", "responder"]),
    "spotify": ("Spotify", ["playlist", "track", "album", "artist", "podcast", "queue", "device", "recommendation"]),
    "translate": ("Translation", ["text", "document", "glossary", "language", "transliteration", "detection", "dictionary_entry", "batch_job"]),
}
VERBS = [
    ("list", "List {objs} in {svc}, with paging and filters"),
    ("get", "Get one {obj} from {svc} by its id"),
    ("create", "Create a new {obj} in {svc}"),
    ("update", "Update the fields of an existing {svc} {obj}"),
    ("delete", "Delete a {obj} from {svc} permanently"),
]
PARAMS = {
    "list": [("limit", "Most items to return"), ("cursor", "Page cursor from the last call")],
    "get": [("id", "Identifier of the {obj}")],
    "create": [("data", "Fields of the new {obj}")],
    "update": [("id", "Identifier of the {obj}"), ("changes", "Fields to change")],
    "delete": [("id", "Identifier of the {obj} to delete"), ("confirm", "Must be true")],
}


def human(o: str) -> str:
    return o.replace("_", " ")


def plural(o: str) -> str:
    o = human(o)
    if o.endswith("y") and not o.endswith(("ay", "ey", "oy")):
        return o[:-1] + "ies"
    if o.endswith(("s", "x", "sh", "ch")):
        return o + "es"
    return o + "s"


tools = []
for svc, (label, objects) in SERVICES.items():
    for obj in objects:
        for verb, desc in VERBS:
            props = {
                k: {"type": "string", "description": d.format(obj=human(obj))}
                for k, d in PARAMS[verb]
            }
            tools.append({
                "name": f"{svc}_{verb}_{obj}",
                "description": desc.format(obj=human(obj), objs=plural(obj), svc=label),
                "inputSchema": {"type": "object", "properties": props},
            })
assert len(tools) == 1000

# Named queries and the three tools expected first, in order.
QUERIES = [
    ("exact name", "slack_get_message", ["slack_get_message"]),
    ("name prefix", "weather_get_fore", ["weather_get_forecast"]),
    ("send sms", "create an sms with twilio", ["twilio_create_sms"]),
    ("delete pod", "delete a kubernetes pod", ["k8s_delete_pod"]),
    ("list playlists", "list spotify playlists", ["spotify_list_playlist"]),
    ("refund", "refund stripe", ["stripe_create_refund", "stripe_get_refund", "stripe_delete_refund"]),
    ("air quality", "air quality", ["weather_create_air_quality", "weather_get_air_quality", "weather_delete_air_quality"]),
    ("merge request", "update a merge request", ["gitlab_update_merge_request"]),
]
out = {"tools": tools, "queries": [{"name": n, "query": q, "top": t} for n, q, t in QUERIES]}
path = pathlib.Path(__file__).with_name("tools-1000.json")
path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
