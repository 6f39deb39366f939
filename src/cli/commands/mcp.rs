//! `mneme-gate mcp`: the retriever as an MCP server over standard input and
//! output, for agents that call tools (`memory_search`, `memory_context`,
//! `memory_explain`, `memory_health`; see `tools`).
//!
//! The protocol is the official Rust SDK's (`rmcp`): the `initialize`
//! handshake of the protocol versions up to 2025-11-25 and the per-request
//! lifecycle of 2026-07-28 (`server/discover`), version negotiation, `ping`,
//! cancellation. It runs on a single-threaded tokio runtime that exists only
//! inside this command; the rest of the binary stays synchronous.
//!
//! The memory file is loaded and indexed once and kept hot (`cache::Hot`):
//! each call checks the file's metadata, and a changed file is reloaded
//! without a restart; a broken edit keeps the last good index serving and
//! shows in `memory_health`. Standard output belongs to the protocol (rmcp
//! writes it, through `framing`, which also answers a line that is not JSON
//! with the JSON-RPC parse error -32700); this command prints nothing else
//! there, and its notes go to standard error.

use std::sync::Mutex;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

use crate::cache::Hot;
use crate::cli::output;
use crate::cli::settings::McpSettings;
use crate::error::{exit, Error};
use crate::retrieval::Scratch;

mod framing;
mod tools;

/// The server: the hot memory and one scratch for its queries (calls are
/// answered one at a time).
struct Server {
    state: Mutex<(Hot, Scratch)>,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mneme-gate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The project's architectural decisions, retrieved as CI's gate retrieves them. Before editing a file, \
                 call memory_context with the task and the file, and follow the decisions it returns.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // A panic of one call poisons the lock; the state is still whole
        // (a refresh replaces the index only once it is built).
        let mut guard = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (hot, scratch) = &mut *guard;
        match tools::call(hot, scratch, &request.name, request.arguments.as_ref()) {
            Some(result) => Ok(result.into()),
            None => Err(McpError::invalid_params(tools::unknown(&request.name), None)),
        }
    }
}

pub(crate) fn execute(s: McpSettings) -> Result<i32, Error> {
    let hot = Hot::load_sources(&s.memory.sources, s.memory.profile);
    if let Some(problem) = hot.problem() {
        output::note(&format!("mcp: {problem}"));
    }
    let server = Server { state: Mutex::new((hot, Scratch::default())) };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Infrastructure(format!("cannot start the MCP server: {e}")))?;
    runtime.block_on(async move {
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        let framed = framing::start(stdin, stdout);
        let running = server
            .serve((framed.input, framed.output))
            .await
            .map_err(|e| Error::Infrastructure(format!("the MCP session did not start: {e}")))?;
        running.waiting().await.map_err(|e| Error::Infrastructure(format!("the MCP server stopped: {e}")))?;
        Ok(exit::OK)
    })
}
