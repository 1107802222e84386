"""The 2026-07-28 revision's types that the 2025-11-25 schema (``_generated.py``) has not:
``server/discover``'s result and ``subscriptions/listen``'s filter, acknowledgement and result, as
mcp 2.x's ``mcp_types`` names them. Field names are the wire's; snake_case is taken too (``SpecModel``)."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict

from ._base import SpecModel
from ._generated import Notification, NotificationParams, Request, RequestParams, Result, ServerCapabilities

__all__ = ["SUBSCRIPTION_ID_META_KEY", "DiscoverResult", "SubscriptionFilter", "SubscriptionsAcknowledgedNotification",
           "SubscriptionsAcknowledgedNotificationParams", "SubscriptionsListenRequest", "SubscriptionsListenRequestParams",
           "SubscriptionsListenResult"]

#: The ``_meta`` key that tags every message of a ``subscriptions/listen`` stream with the listen request's id.
SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"


class DiscoverResult(Result):
    """``server/discover``'s answer: the versions served, the capabilities, the instructions, and
    the caching hints every discover result carries."""

    supportedVersions: list[str]
    capabilities: ServerCapabilities
    instructions: str | None = None
    ttlMs: int = 0
    cacheScope: Literal["public", "private"] = "private"


class SubscriptionFilter(SpecModel):
    """What a ``subscriptions/listen`` stream asks for (each kind opt-in); echoed in the
    acknowledgement as the subset the server honours. Extensions add keys, which are kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    toolsListChanged: bool | None = None
    promptsListChanged: bool | None = None
    resourcesListChanged: bool | None = None
    resourceSubscriptions: list[str] | None = None


class SubscriptionsListenRequestParams(RequestParams):
    notifications: SubscriptionFilter


class SubscriptionsListenRequest(Request):
    """Opens a stream of the notifications its filter asks for, outside any other request."""

    method: Literal["subscriptions/listen"] = "subscriptions/listen"
    params: SubscriptionsListenRequestParams  # type: ignore[assignment]


class SubscriptionsAcknowledgedNotificationParams(NotificationParams):
    notifications: SubscriptionFilter


class SubscriptionsAcknowledgedNotification(Notification):
    method: Literal["notifications/subscriptions/acknowledged"] = "notifications/subscriptions/acknowledged"
    params: SubscriptionsAcknowledgedNotificationParams  # type: ignore[assignment]


class SubscriptionsListenResult(Result):
    """The answer that ends a listen stream gracefully (its ``_meta`` names the subscription)."""
