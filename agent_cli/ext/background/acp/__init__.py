"""A background session's Agent Client Protocol: the session's side on its socket (acp_hub,
acp_session), `agent attach` as a terminal client of it (attach, attach_dialogs, attach_rpc),
and `agent attach --acp`, an editor's stdio carried to the socket (acp_bridge)."""
