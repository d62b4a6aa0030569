export const MCP_SERVICE = 'mcp-passthrough';
//# sourceMappingURL=api.js.map