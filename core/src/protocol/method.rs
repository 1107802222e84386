//! A message's method, parsed once when the message is read: every layer (era, access,
//! middleware, routing, the call pipeline, metrics, tasks) matches on [`Method`], none on the
//! string again.

use std::borrow::Cow;
use std::fmt;

/// The methods the server knows, and any other as it came (answered -32601, or a notification
/// handed to the host). A known method costs no copy; its name is `'static`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Method {
    Initialize,
    Ping,
    LoggingSetLevel,
    ServerDiscover,
    SubscriptionsListen,
    ToolsList,
    ToolsCall,
    /// The experimental `oxmcp/tools/search` (option `tool_search_method`).
    ToolsSearch,
    ResourcesList,
    ResourcesTemplatesList,
    ResourcesRead,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    ResourcesDirectoryRead,
    PromptsList,
    PromptsGet,
    CompletionComplete,
    SkillsList,
    SkillsGet,
    TasksGet,
    TasksUpdate,
    TasksCancel,
    Other(String),
}

/// Every known method with its name: the one table [`Method::parse`] and [`Method::as_str`]
/// agree with (a test holds them to it).
#[cfg(test)]
const KNOWN: [Method; 22] = [
    Method::Initialize,
    Method::Ping,
    Method::LoggingSetLevel,
    Method::ServerDiscover,
    Method::SubscriptionsListen,
    Method::ToolsList,
    Method::ToolsCall,
    Method::ToolsSearch,
    Method::ResourcesList,
    Method::ResourcesTemplatesList,
    Method::ResourcesRead,
    Method::ResourcesSubscribe,
    Method::ResourcesUnsubscribe,
    Method::ResourcesDirectoryRead,
    Method::PromptsList,
    Method::PromptsGet,
    Method::CompletionComplete,
    Method::SkillsList,
    Method::SkillsGet,
    Method::TasksGet,
    Method::TasksUpdate,
    Method::TasksCancel,
];

impl Method {
    /// The method a message names. One `match` on the string: the compiler compares by length
    /// first, so a request's method costs a comparison or two, once.
    pub(crate) fn parse(m: Cow<'_, str>) -> Self {
        match &*m {
            "tools/call" => Self::ToolsCall,
            "tools/list" => Self::ToolsList,
            "resources/read" => Self::ResourcesRead,
            "resources/list" => Self::ResourcesList,
            "resources/templates/list" => Self::ResourcesTemplatesList,
            "resources/subscribe" => Self::ResourcesSubscribe,
            "resources/unsubscribe" => Self::ResourcesUnsubscribe,
            "resources/directory/read" => Self::ResourcesDirectoryRead,
            "prompts/get" => Self::PromptsGet,
            "prompts/list" => Self::PromptsList,
            "completion/complete" => Self::CompletionComplete,
            "server/discover" => Self::ServerDiscover,
            "subscriptions/listen" => Self::SubscriptionsListen,
            "initialize" => Self::Initialize,
            "ping" => Self::Ping,
            "logging/setLevel" => Self::LoggingSetLevel,
            "oxmcp/tools/search" => Self::ToolsSearch,
            "skills/list" => Self::SkillsList,
            "skills/get" => Self::SkillsGet,
            "tasks/get" => Self::TasksGet,
            "tasks/update" => Self::TasksUpdate,
            "tasks/cancel" => Self::TasksCancel,
            _ => Self::Other(m.into_owned()),
        }
    }

    /// The method's name as it is on the wire.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Self::Other(m) => m,
            known => known.name(),
        }
    }

    /// A known method's `'static` name (what a metric label or an MRTR state holds); `""` for
    /// [`Method::Other`].
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::Initialize => "initialize",
            Self::Ping => "ping",
            Self::LoggingSetLevel => "logging/setLevel",
            Self::ServerDiscover => "server/discover",
            Self::SubscriptionsListen => "subscriptions/listen",
            Self::ToolsList => "tools/list",
            Self::ToolsCall => "tools/call",
            Self::ToolsSearch => "oxmcp/tools/search",
            Self::ResourcesList => "resources/list",
            Self::ResourcesTemplatesList => "resources/templates/list",
            Self::ResourcesRead => "resources/read",
            Self::ResourcesSubscribe => "resources/subscribe",
            Self::ResourcesUnsubscribe => "resources/unsubscribe",
            Self::ResourcesDirectoryRead => "resources/directory/read",
            Self::PromptsList => "prompts/list",
            Self::PromptsGet => "prompts/get",
            Self::CompletionComplete => "completion/complete",
            Self::SkillsList => "skills/list",
            Self::SkillsGet => "skills/get",
            Self::TasksGet => "tasks/get",
            Self::TasksUpdate => "tasks/update",
            Self::TasksCancel => "tasks/cancel",
            Self::Other(_) => "",
        }
    }

    /// A `*/list` method (an unknown one too: its name ends in `/list`).
    pub(crate) fn is_list(&self) -> bool {
        matches!(
            self,
            Self::ToolsList
                | Self::ResourcesList
                | Self::ResourcesTemplatesList
                | Self::PromptsList
                | Self::SkillsList
        ) || matches!(self, Self::Other(m) if m.ends_with("/list"))
    }

    /// One of the Tasks extension's `tasks/*` methods.
    pub(crate) fn is_task(&self) -> bool {
        matches!(self, Self::TasksGet | Self::TasksUpdate | Self::TasksCancel)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for Method {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every known method parses from its own name, and only from it; anything else is kept as
    /// it came.
    #[test]
    fn known_methods_round_trip_others_kept() {
        for m in KNOWN {
            assert_eq!(Method::parse(Cow::Borrowed(m.name())), m);
            assert!(!m.name().is_empty());
            assert_eq!(m.as_str(), m.name());
        }
        let other = Method::parse(Cow::Borrowed("x/tools/call"));
        assert_eq!(other, Method::Other("x/tools/call".into()));
        assert_eq!(other.as_str(), "x/tools/call");
        assert!(Method::parse(Cow::Borrowed("foo/list")).is_list());
    }
}
