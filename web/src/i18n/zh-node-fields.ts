// 简体中文 of the built-in node types' configuration fields (GET /components): each field's label and
// help, keyed by the server's English text (see zh-node-types.ts). Field names, ${...} templates,
// code and values (true, chain, postgres...) stay as they are.
export const zhNodeFields: Record<string, string> = {
  'Filter script': '过滤脚本',
  'Body of function Filter(msg, metadata, msgType, dataType); return true or false.':
    'Filter(msg, metadata, msgType, dataType) 函数的函数体；返回 true 或 false。',
  'Transform script': '转换脚本',
  'Body of function Transform(msg, metadata, msgType, dataType); return {msg, metadata, msgType, dataType?}.':
    'Transform(msg, metadata, msgType, dataType) 函数的函数体；返回 {msg, metadata, msgType, dataType?}。',
  'Switch script': '分支脚本',
  'Body of function Switch(msg, metadata, msgType, dataType); return an array of relation names.':
    'Switch(msg, metadata, msgType, dataType) 函数的函数体；返回关系名称的数组。',
  Expression: '表达式',
  'An expr-lang expression over id, ts, data, msg, metadata, msgType, dataType, vars and global.':
    '基于 id、ts、data、msg、metadata、msgType、dataType、vars 和 global 的 expr-lang 表达式。',
  Cases: '条件',
  'Tried in order; the first that is true names the relation.': '按顺序判断；第一个成立的条件决定关系。',
  'Timeout (s)': '超时（秒）',
  'Seconds to wait for every branch; unset, 0 or less waits 30 s (as RuleGo).':
    '等待所有分支的秒数；未设置、0 或更小时等待 30 秒（与 RuleGo 相同）。',
  'Merge to map': '合并为对象',
  "Merge the branches' object data into one object (other data under the sending node's id) instead of a list of {msg, err, nodeId}.":
    '把各分支的对象数据合并为一个对象（其他数据放在发送节点的 ID 下），而不是 {msg, err, nodeId} 列表。',
  'Rule chain': '规则链',
  'Id of the chain to run; looked up when the message arrives.': '要运行的规则链 ID；在消息到达时查找。',
  'Pass each result': '逐个传出结果',
  'Pass on every end of the sub-chain as its own message, with its own relation, instead of one merged message.':
    '把子规则链的每个结束点作为单独的消息、以各自的关系传出，而不是合并成一条消息。',
  'Format script': '格式化脚本',
  'Body of function ToString(msg, metadata, msgType, dataType); must return a string, the text to log.':
    'ToString(msg, metadata, msgType, dataType) 函数的函数体；必须返回字符串，即要记录的文本。',
  'Delay (ms)': '延迟（毫秒）',
  'Milliseconds to wait: a number, a numeric string or a template such as ${metadata.delay}.':
    '等待的毫秒数：数字、数字字符串或 ${metadata.delay} 这样的模板。',
  'Delay (s)': '延迟（秒）',
  'Seconds to wait when delayMs is not set (deprecated in RuleGo).':
    '未设置 delayMs 时等待的秒数（RuleGo 中已弃用）。',
  'Delay (s) template': '延迟（秒）模板',
  'Seconds to wait as a template, when delayMs is not set (deprecated in RuleGo).':
    '未设置 delayMs 时，以模板给出的等待秒数（RuleGo 中已弃用）。',
  'Max waiting': '最多等待数',
  'Messages allowed to wait at once (0 or less: 1000); more take Failure.':
    '同时允许等待的消息数（0 或更小：1000）；超出的走 Failure。',
  Overwrite: '覆盖',
  'true: one message waits at a time; one arriving meanwhile takes its place and goes on when the wait ends.':
    'true：同一时间只有一条消息在等待；等待期间到达的消息取而代之，等待结束后继续传出。',
  URL: 'URL',
  'Endpoint URL; ${metadata.key}, ${msg.key}, ${vars.key} and ${global.key} are replaced. Private, loopback and link-local addresses are refused unless the server allows them.':
    '接口 URL；${metadata.key}、${msg.key}、${vars.key} 和 ${global.key} 会被替换。除非服务器允许，私有地址、回环地址和链路本地地址会被拒绝。',
  Method: '方法',
  'HTTP method, in any case.': 'HTTP 方法，大小写均可。',
  Headers: '请求头',
  'Request headers; values are templated like the URL.': '请求头；值可以像 URL 一样使用模板。',
  'Timeout (ms)': '超时（毫秒）',
  'Time limit of the whole request; 0 for none.': '整个请求的时间上限；0 表示不限。',
  'Max parallel': '最大并发',
  'Requests this node sends at once; more wait their turn.': '此节点同时发出的请求数；超出的排队等待。',
  Body: '正文',
  'Request body template such as {"name": "${msg.name}"}; empty sends the message data.':
    '请求正文模板，例如 {"name": "${msg.name}"}；留空则发送消息数据。',
  'No body': '不发送正文',
  'Send no request body even for POST/PUT/PATCH.': '即使是 POST/PUT/PATCH 也不发送请求正文。',
  Range: '范围',
  'What to iterate, an expr-lang expression: msg.items, metadata.list, 1..5, ${msg.items}; empty iterates the data itself.':
    '要遍历的内容，一个 expr-lang 表达式：msg.items、metadata.list、1..5、${msg.items}；留空则遍历数据本身。',
  'Id of the node that starts the body for each item, or chain:<id> to run another chain.':
    '每一项的循环体起始节点 ID，或用 chain:<id> 运行另一条规则链。',
  Mode: '模式',
  '0: pass the incoming data on; 1: data becomes the array of every result; 2: each iteration gets the previous result, the last passes on; 3: start each body without waiting.':
    '0：传出收到的数据；1：数据变为所有结果组成的数组；2：每次迭代得到上一次的结果，传出最后一次的结果；3：启动每个循环体而不等待。',
  'One expr-lang expression whose value replaces the data; takes precedence over the mapping.':
    '一个 expr-lang 表达式，它的值替换数据；优先于映射。',
  Mapping: '映射',
  'Field to expression, e.g. {"name": "upper(msg.name)"}: the data becomes that JSON object.':
    '字段到表达式的映射，例如 {"name": "upper(msg.name)"}：数据变为该 JSON 对象。',
  'Metadata key to expr-lang expression, e.g. {"temperature": "msg.temperature"}.':
    '元数据键到 expr-lang 表达式的映射，例如 {"temperature": "msg.temperature"}。',
  'Replace all': '全部替换',
  'true: the metadata becomes the mapped keys only; false: the mapped keys are set or updated.':
    'true：元数据只保留映射的键；false：设置或更新映射的键。',
  'All fields': '全部字段',
  'true: every named field must exist; false: one is enough.':
    'true：每个指定的字段都必须存在；false：存在一个即可。',
  'Data fields': '数据字段',
  'Comma-separated top-level fields of the JSON data.': 'JSON 数据的顶层字段，用逗号分隔。',
  'Metadata fields': '元数据字段',
  'Comma-separated metadata keys.': '元数据键，用逗号分隔。',
  Nodes: '节点',
  'Ids of the nodes to call at once: a comma-separated list or an array.':
    '要同时调用的节点 ID：逗号分隔的列表或数组。',
  'Match relation': '匹配关系',
  'The relation a node must end with to count as matched; empty is Success.':
    '节点以此关系结束才算匹配；留空为 Success。',
  'Match count': '匹配数量',
  'Matched nodes needed for Success; 0 or more than the nodes: all of them.':
    '走 Success 所需的匹配节点数；0 或大于节点数：需要全部匹配。',
  'Seconds to wait for the nodes; 0 or less: 30.': '等待这些节点的秒数；0 或更小：30。',
  "Merge the nodes' object data into one object (other data under the node id) instead of a list of {msg, err, nodeId}.":
    '把各节点的对象数据合并为一个对象（其他数据放在节点 ID 下），而不是 {msg, err, nodeId} 列表。',
  Template: '模板',
  'Go text/template; variables .id, .ts, .data, .msg, .metadata, .msgType, .type, .dataType, and .<nodeId>.msg for an earlier node.':
    'Go text/template；变量有 .id、.ts、.data、.msg、.metadata、.msgType、.type、.dataType，以及之前节点的 .<nodeId>.msg。',
  'All match': '全部匹配',
  'True: every filter must end with True (AND); false: one True is enough (OR).':
    'true：每个过滤器都必须以 True 结束（与）；false：有一个 True 即可（或）。',
  'Filter nodes': '过滤节点',
  'Ids of the filter nodes to call at once: a comma-separated list or an array.':
    '要同时调用的过滤节点 ID：逗号分隔的列表或数组。',
  'Seconds to wait for the filters; 0 or less: 30.': '等待这些过滤器的秒数；0 或更小：30。',
  Target: '目标',
  'The node to call: its id in this chain, or chainId:nodeId for a node of another chain.':
    '要调用的节点：本规则链中的节点 ID，或用 chainId:nodeId 指定其他规则链的节点。',
  'Run what follows': '运行后续节点',
  'True: run the target and everything after it; false: only the target node.':
    'true：运行目标节点及其后的所有节点；false：只运行目标节点。',
  Node: '节点',
  'Id of the node of this chain whose last output in the run to pass on.':
    '本规则链中某个节点的 ID，传出它在本次运行中的最后输出。',
  Field: '字段',
  'The field to iterate, dotted (items.value); empty iterates the data itself.':
    '要遍历的字段，用点号分隔（items.value）；留空则遍历数据本身。',
  'Item filter': '项过滤',
  'Optional body of function ItemFilter(item, index, metadata): true sends the item on True, else False; empty sends every item on True.':
    '可选的 ItemFilter(item, index, metadata) 函数体：返回 true 时该项走 True，否则走 False；留空则每一项都走 True。',
  Condition: '条件',
  'An expr-lang expression checked before each iteration; the loop runs while it is true.':
    '每次迭代前检查的 expr-lang 表达式；为 true 时继续循环。',
  'Id of the node that starts the body of each iteration, or chain:<id> to run another chain.':
    '每次迭代的循环体起始节点 ID，或用 chain:<id> 运行另一条规则链。',
  "0: pass the incoming message on; 1: data becomes the array of every iteration's results; 2: each iteration gets the previous result, the last passes on.":
    '0：传出收到的消息；1：数据变为每次迭代结果组成的数组；2：每次迭代得到上一次的结果，传出最后一次的结果。',
  'Name of a registered function; ${metadata.key} and ${msg.key} are replaced (and ${key} for metadata).':
    '已注册函数的名称；${metadata.key} 和 ${msg.key} 会被替换（${key} 表示元数据）。',
  Parameter: '参数',
  'When set, the data becomes this text (with ${...} replaced) before the call; empty keeps the data.':
    '设置后，调用前数据变为此文本（${...} 会被替换）；留空则保持数据不变。',
  Keys: '键',
  'The keys to read.': '要读取的键。',
  Level: '级别',
  "chain: this chain's own keys; global: keys every chain shares.":
    'chain：本规则链自己的键；global：所有规则链共享的键。',
  Key: '键',
  'Cache key; ${metadata.key} and ${msg.key} are replaced; a trailing * matches a prefix.':
    '缓存键；${metadata.key} 和 ${msg.key} 会被替换；以 * 结尾时按前缀匹配。',
  Output: '输出',
  '0: into the metadata; 1: merged into the JSON data; 2: the data becomes {key: value}.':
    '0：写入元数据；1：并入 JSON 数据；2：数据变为 {key: value}。',
  'When not found': '未找到时',
  'failure: Failure when no key has a value; success: go on; empty: Failure only in output mode 2.':
    'failure：没有任何键有值时走 Failure；success：继续；留空：仅在输出模式 2 下走 Failure。',
  Items: '条目',
  'The keys to set.': '要设置的键。',
  'Cache key; ${...} is replaced.': '缓存键；${...} 会被替换。',
  Value: '值',
  "The value; a text with one ${expr} keeps the value's type.":
    '值；只含一个 ${expr} 的文本会保留该值的类型。',
  TTL: 'TTL',
  'How long it lives: 10s, 5m, 1h; empty: no expiry.': '存活时间：10s、5m、1h；留空：永不过期。',
  'The keys to delete; a trailing * deletes a prefix.': '要删除的键；以 * 结尾时删除该前缀的所有键。',
  Driver: '驱动',
  'postgres, mysql or sqlite3 (a libsql/SQLite file).': 'postgres、mysql 或 sqlite3（libsql/SQLite 文件）。',
  DSN: 'DSN',
  'postgres://user:password@host:5432/db, mysql://user:password@host:3306/db or user:password@tcp(host:3306)/db, or a SQLite file path.':
    'postgres://user:password@host:5432/db、mysql://user:password@host:3306/db 或 user:password@tcp(host:3306)/db，或一个 SQLite 文件路径。',
  'Pool size': '连接池大小',
  'Connections kept open; 0 is 5.': '保持打开的连接数；0 表示 5。',
  Operation: '操作',
  'SELECT, INSERT, UPDATE, DELETE or EXEC; empty or AUTO reads it from the SQL.':
    'SELECT、INSERT、UPDATE、DELETE 或 EXEC；留空或 AUTO 时从 SQL 中判断。',
  SQL: 'SQL',
  'The statement, with ? placeholders for the parameters; ${metadata.key} and ${msg.key} are replaced.':
    'SQL 语句，参数用 ? 占位；${metadata.key} 和 ${msg.key} 会被替换。',
  Parameters: '参数',
  'Values of the ? placeholders, in order; a text with one ${expr} keeps its type.':
    '按顺序给出 ? 占位符的值；只含一个 ${expr} 的文本会保留其类型。',
  'First row only': '只取第一行',
  'SELECT: the data is the first row instead of the list.': 'SELECT：数据为第一行而不是列表。',
  Command: '命令',
  'The program to run; ${metadata.key} and ${msg.key} are replaced.':
    '要运行的程序；${metadata.key} 和 ${msg.key} 会被替换。',
  Arguments: '参数',
  'Its arguments, each with ${...} replaced; as in RuleGo one not starting with " is split at spaces. No shell.':
    '程序的参数，每个参数中的 ${...} 会被替换；与 RuleGo 相同，不以 " 开头的参数按空格拆分。不经过 shell。',
  'Log output': '记录输出',
  'Kept for RuleGo chains; the output is in the run log.': '为兼容 RuleGo 规则链而保留；输出在运行日志中。',
  'Output as data': '输出作为数据',
  'The data becomes what the command printed.': '数据变为命令打印的内容。',
  Host: '主机',
  'The SSH server.': 'SSH 服务器。',
  Port: '端口',
  'Its port.': '它的端口。',
  User: '用户',
  'The user to log in as.': '登录所用的用户。',
  'The command to run there.': '要在那里运行的命令。',
  Server: '服务器',
  'The broker: tcp://host:1883 (or mqtt://).': '消息代理：tcp://host:1883（或 mqtt://）。',
  'Broker user name.': '代理的用户名。',
  Password: '密码',
  'Broker password.': '代理的密码。',
  Topic: '主题',
  'Where to publish; ${metadata.key} and ${msg.key} are replaced.':
    '发布到哪里；${metadata.key} 和 ${msg.key} 会被替换。',
  QoS: 'QoS',
  '0, 1 or 2.': '0、1 或 2。',
  'Clean session': '清除会话',
  'Start without the previous session.': '不带之前的会话开始。',
  'Client id': '客户端 ID',
  'Empty: a random one.': '留空：随机生成。',
  'Reconnect (s)': '重连间隔（秒）',
  'Wait between reconnects.': '两次重连之间的等待时间。',
  'SMTP host': 'SMTP 主机',
  'The mail server.': '邮件服务器。',
  'SMTP port': 'SMTP 端口',
  'Its port; default 25.': '它的端口；默认 25。',
  'SMTP user; empty sends without logging in.': 'SMTP 用户；留空则不登录直接发送。',
  'SMTP password.': 'SMTP 密码。',
  TLS: 'TLS',
  'Connect with TLS (port 465); off still upgrades with STARTTLS when offered.':
    '用 TLS 连接（端口 465）；关闭时若服务器支持仍会用 STARTTLS 升级。',
  'Connect timeout (s)': '连接超时（秒）',
  'Seconds to wait for the server.': '等待服务器的秒数。',
  Email: '邮件',
  'The message to send.': '要发送的邮件。',
  From: '发件人',
  'Sender address.': '发件人地址。',
  To: '收件人',
  'Recipients, comma-separated.': '收件人，用逗号分隔。',
  Cc: '抄送',
  'Copies, comma-separated.': '抄送人，用逗号分隔。',
  Bcc: '密送',
  'Blind copies, comma-separated.': '密送人，用逗号分隔。',
  Subject: '主题',
  '${metadata.key} and ${msg.key} are replaced.': '${metadata.key} 和 ${msg.key} 会被替换。',
  'HTML body; ${metadata.key} and ${msg.key} are replaced.':
    'HTML 正文；${metadata.key} 和 ${msg.key} 会被替换。',
  Protocol: '协议',
  'tcp or udp.': 'tcp 或 udp。',
  'host:port to send to.': '发送目标 host:port。',
  'Seconds to wait for a TCP connection.': '等待 TCP 连接的秒数。',
  'Heartbeat (s)': '心跳（秒）',
  'Kept for RuleGo chains (TCP keep-alive is on).': '为兼容 RuleGo 规则链而保留（TCP keep-alive 已开启）。',
  'ws://host:port/path or wss://...': 'ws://host:port/path 或 wss://...',
  'Handshake headers, e.g. Authorization.': '握手时的请求头，例如 Authorization。',
  Subprotocol: '子协议',
  'Sec-WebSocket-Protocol; empty for none.': 'Sec-WebSocket-Protocol；留空表示不使用。',
  'Handshake time limit.': '握手的时间上限。',
  'Frame type': '帧类型',
  'text or binary.': 'text 或 binary。',
  'Provider URL': '服务商 URL',
  'Empty: the default provider. Usually ${global.models.providers.<id>.base_url}.':
    '留空：默认服务商。通常为 ${global.models.providers.<id>.base_url}。',
  'API key': 'API 密钥',
  'Usually ${global.models.providers.<id>.api_key}.': '通常为 ${global.models.providers.<id>.api_key}。',
  Model: '模型',
  "Empty: the provider's default model.": '留空：服务商的默认模型。',
  'System prompt': '系统提示词',
  'Templated: ${ruleChain.id}, ${now()}, ${include(path)}, ${global.*}, ${vars.*}.':
    '支持模板：${ruleChain.id}、${now()}、${include(path)}、${global.*}、${vars.*}。',
  'Max steps': '最大步数',
  'Model calls per turn at most.': '每轮对话最多调用模型的次数。',
  'Max tool output': '工具输出上限',
  'Characters of one tool result given to the model.': '单个工具结果交给模型的字符数上限。',
  'Model parameters': '模型参数',
  'temperature, topP, maxTokens, stop, responseFormat (text, json_object, json_schema with jsonSchema), keepThink.':
    'temperature、topP、maxTokens、stop、responseFormat（text、json_object，或带 jsonSchema 的 json_schema）、keepThink。',
  Temperature: '温度',
  'Sampling temperature, 0 to 2; empty: the model default.': '采样温度，0 到 2；留空：模型默认值。',
  'Top P': 'Top P',
  'Nucleus sampling, 0 to 1; empty: the model default.': '核采样，0 到 1；留空：模型默认值。',
  'Max tokens': '最大 token 数',
  'Tokens of the reply at most; empty: the model default.': '回复最多的 token 数；留空：模型默认值。',
  'Stop sequences': '停止序列',
  'Up to 4 texts that end the reply.': '最多 4 个结束回复的文本。',
  'Response format': '回复格式',
  'text, json_object or json_schema (with jsonSchema); default text.':
    'text、json_object 或 json_schema（需配合 jsonSchema）；默认 text。',
  'JSON Schema': 'JSON Schema',
  'The JSON Schema of the reply when responseFormat is json_schema.':
    'responseFormat 为 json_schema 时回复所遵循的 JSON Schema。',
  'Keep thinking': '保留思考过程',
  'Text format: keep a <think>...</think> block in the reply (removed by default).':
    '文本格式：在回复中保留 <think>...</think> 块（默认移除）。',
  Tools: '工具',
  'builtin, rulechain, agent (sub-agent) and mcp tools.':
    'builtin、rulechain、agent（子智能体）和 mcp 工具。',
  Kind: '种类',
  'builtin (read, write, bash...), rulechain, agent (a sub-agent), mcp or a2a.':
    'builtin（read、write、bash……）、rulechain、agent（子智能体）、mcp 或 a2a。',
  Name: '名称',
  'The tool name the model sees (a built-in: its name); empty: from the target.':
    '模型看到的工具名称（内置工具：它自己的名称）；留空：取自目标。',
  Description: '描述',
  'What the model is told the tool does.': '告诉模型这个工具做什么。',
  'The rule chain, agent, MCP server or A2A agent it calls.':
    '它调用的规则链、智能体、MCP 服务器或 A2A 智能体。',
  Settings: '设置',
  "The kind's own settings (an MCP command or URL, say).": '该种类自己的设置（例如 MCP 命令或 URL）。',
  'How long one call may take.': '一次调用最多可用的时间。',
  Messages: '消息',
  'Preset messages (role system, user or assistant; content templated), sent instead of the input data unless it is {"messages": [...]}.':
    '预设消息（角色为 system、user 或 assistant；内容支持模板），代替输入数据发送，除非输入数据是 {"messages": [...]}。',
  Role: '角色',
  'system, user or assistant; empty: user.': 'system、user 或 assistant；留空：user。',
  Content: '内容',
  'The text, with ${msg.*}, ${metadata.*}, ${vars.*} templates.':
    '文本，可使用 ${msg.*}、${metadata.*}、${vars.*} 模板。',
  Compaction: '压缩',
  "This agent's compaction settings over agents.defaults.compaction: enabled, trigger_percent, keep_recent_tokens, model, memory_flush.":
    '此智能体覆盖 agents.defaults.compaction 的压缩设置：enabled、trigger_percent、keep_recent_tokens、model、memory_flush。',
  Enabled: '启用',
  'Summarise older turns when a request would pass the trigger (default true).':
    '请求将超过触发点时总结较早的对话轮次（默认 true）。',
  'Trigger (%)': '触发点（%）',
  "The trigger, in percent of the model's context window (default 75).":
    '触发点，占模型上下文窗口的百分比（默认 75）。',
  'Recent tokens kept': '保留的最近 token 数',
  'Estimated tokens of the newest turns always kept verbatim (default 8000).':
    '始终原样保留的最新对话轮次的估计 token 数（默认 8000）。',
  'Summary model': '总结模型',
  "The summariser as provider/model; default: the agent's own model.":
    '用于总结的模型，格式为 provider/model；默认：智能体自己的模型。',
  'Memory flush': '记忆写入',
  'One silent turn before each compaction to write what matters to memory files (default true).':
    '每次压缩前进行一轮静默对话，把重要内容写入记忆文件（默认 true）。',
  'Empty: the default provider.': '留空：默认服务商。',
  "Empty: the provider's key. Usually ${global.models.providers.<id>.api_key}.":
    '留空：服务商的密钥。通常为 ${global.models.providers.<id>.api_key}。',
  'Templated with ${msg.*}, ${metadata.*}, ${vars.*}, ${global.*}.':
    '支持 ${msg.*}、${metadata.*}、${vars.*}、${global.*} 模板。',
  'Templated prompt messages (role system, user or assistant); empty: {"messages": [...]} data as the conversation, else the input data as the user message.':
    '支持模板的提示消息（角色为 system、user 或 assistant）；留空时：{"messages": [...]} 形式的数据作为对话，否则输入数据作为用户消息。',
};
