import { DEFAULT_ADMIN_PASSWORD, DEFAULT_HOST, DEFAULT_PORT } from './schema.ts';

/** The commented config written on first start when no config file exists. */
export const DEFAULT_CONFIG_TEXT = `# Agent Service configuration.
# Values may use \${NAME} or \${NAME:-default} to read environment variables.
# Relative paths resolve against the folder of this file.

server:
  # Loopback by default. Binding elsewhere without security.requireAuth prints a warning.
  host: ${DEFAULT_HOST}
  port: ${DEFAULT_PORT}

data:
  root_dir: ./data
  logs_dir: ./data/logs

models:
  # Empty: the built-in demo model answers until a real provider is configured.
  default_provider: ""
  providers: {}
  # Example:
  # providers:
  #   openai:
  #     name: OpenAI
  #     base_url: https://api.openai.com/v1
  #     api_key: \${OPENAI_API_KEY}
  #     model: gpt-4o-mini

security:
  # Off by default, as the API contract says; turn it on before exposing the server.
  requireAuth: false
  users:
    # <password> or <password>:<API_KEY>. Change the default password before production use.
    admin: ${DEFAULT_ADMIN_PASSWORD}
  jwtExpire: 24h

channels:
  api:
    enabled: true
    accounts: {}

bindings: []

# Spending limits per day or month, enforced before every model call (README: Usage, cost and
# budgets). Prices come from models.providers.<id>.pricing (USD per million tokens). Example:
# budgets:
#   - { id: daily, scope: {}, period: day, cost: 5 }
#   - { id: main, scope: { agent: main }, period: month, tokens: 2000000, action: warn }
`;
