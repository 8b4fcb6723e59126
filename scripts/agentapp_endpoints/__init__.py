"""The protocols the AgentApp scripts call on a real AgentApp: one module each,
declaring its ``ENDPOINT`` (scripts/agentapp.py says what it holds)."""
