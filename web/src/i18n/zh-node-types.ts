// 简体中文 of the built-in node types' texts that the server sends on GET /components: the palette's
// categories, each type's label and description. Keyed by the server's English text, so a text the
// server words differently (or a type added later) shows in English until it is added here; the
// type ids (jsFilter, ai/agent...) are never translated. test/web/node-texts.test.ts checks that
// every built-in text has its translation.
export const zhNodeTypes: Record<string, string> = {
  filter: '过滤',
  transform: '转换',
  flow: '流程',
  action: '动作',
  external: '外部',
  common: '通用',
  ai: 'AI',
  'Script filter': '脚本过滤',
  'Routes the message to True or False by the result of a JavaScript function.':
    '按 JavaScript 函数的结果把消息路由到 True 或 False。',
  'Script transform': '脚本转换',
  'Rewrites the message data, metadata and type with a JavaScript function.':
    '用 JavaScript 函数改写消息的数据、元数据和类型。',
  'Script switch': '脚本分支',
  'Routes the message to every relation named by a JavaScript function (Default for one not connected).':
    '把消息路由到 JavaScript 函数给出的每个关系（未连接的关系走 Default）。',
  'Expression filter': '表达式过滤',
  'Routes the message to True when the expression is boolean true, else False.':
    '表达式的值为布尔 true 时把消息路由到 True，否则到 False。',
  Switch: '条件分支',
  'Routes the message to the relation of the first case that is true, else Default.':
    '把消息路由到第一个成立的条件所对应的关系，都不成立则到 Default。',
  Fork: '并行分叉',
  'Passes the message on Success; every Success connection runs as its own branch.':
    '在 Success 上传递消息；每个 Success 连接作为独立的分支运行。',
  Join: '汇合',
  'Waits for every branch of the nearest split above it, then passes one message whose data holds them all; a branch that arrives on Failure fails the join.':
    '等待上游最近一次分叉的所有分支，然后传出一条包含全部分支数据的消息；任何分支以 Failure 到达，汇合即失败。',
  'Sub-chain': '子规则链',
  'Runs another rule chain with the message; passes on the list of its ends as {msg, err, nodeId} records, or each end as it is.':
    '用这条消息运行另一条规则链；把它各个结束点的结果作为 {msg, err, nodeId} 记录列表传出，或逐个原样传出。',
  End: '结束',
  'Marks the message as the reply of the chain; nothing after it runs.':
    '把消息标记为规则链的回复；之后的节点都不再运行。',
  Log: '日志',
  'Writes the text of its script to the service log and passes the message on.':
    '把脚本生成的文本写入服务日志，并把消息传下去。',
  Delay: '延迟',
  'Waits, then passes the message on; metadata._delayOffsetMs shortens the wait; with overwrite, a message arriving during the wait replaces the waiting one.':
    '等待一段时间后传出消息；metadata._delayOffsetMs 可缩短等待；开启覆盖时，等待期间到达的消息会替换正在等待的消息。',
  'REST call': 'REST 调用',
  'Calls an HTTP endpoint; a 200 answer becomes the message data, any other status takes Failure with the answer in metadata.errorBody.':
    '调用一个 HTTP 接口；200 的响应成为消息数据，其他状态码走 Failure，响应内容放在 metadata.errorBody 中。',
  'For each': '遍历',
  'Runs the body once per item (metadata _loopIndex, _loopItem, _loopKey), one after another, then passes on Success.':
    '对每一项依次运行一次循环体（元数据 _loopIndex、_loopItem、_loopKey），然后在 Success 上传出。',
  'Expression transform': '表达式转换',
  'Replaces the data with the value of an expr-lang expression, or with a JSON object built from a field mapping.':
    '用 expr-lang 表达式的值替换数据，或用字段映射构造的 JSON 对象替换数据。',
  'Metadata transform': '元数据转换',
  'Sets metadata keys to the values of expr-lang expressions; the data is unchanged.':
    '把元数据键设置为 expr-lang 表达式的值；数据保持不变。',
  'Message type switch': '消息类型分支',
  'Routes the message to the connection named after its message type; without one, to Default.':
    '把消息路由到以其消息类型命名的连接；没有这样的连接时到 Default。',
  'Field filter': '字段过滤',
  'Routes to True when the named data fields and metadata keys exist, else False.':
    '指定的数据字段和元数据键存在时路由到 True，否则到 False。',
  'Group action': '节点组动作',
  'Calls several nodes at once (only those nodes, not what follows them); Success when enough of them end with the match relation, else Failure.':
    '同时调用多个节点（只调用这些节点，不运行它们之后的节点）；足够多的节点以匹配关系结束时走 Success，否则走 Failure。',
  'Text template': '文本模板',
  'Replaces the data with a Go text/template rendered over the message.':
    '用基于消息渲染的 Go text/template 替换数据。',
  'Group filter': '过滤器组',
  'Calls several filter nodes at once (only those nodes); True when all (allMatches) or any of them end with True, else False.':
    '同时调用多个过滤节点（只调用这些节点）；全部（allMatches）或任一以 True 结束时走 True，否则走 False。',
  Reference: '节点引用',
  'Calls a node of this chain or of another one (chainId:nodeId) and passes on what it ends with; tellChain runs what follows it too.':
    '调用本规则链或其他规则链（chainId:nodeId）中的一个节点，并传出它的结果；tellChain 会连同其后的节点一起运行。',
  'Fetch node output': '获取节点输出',
  'Passes on the last output of another node of this run on Success; Failure when that node has not run.':
    '在 Success 上传出本次运行中另一个节点的最后输出；该节点尚未运行时走 Failure。',
  Iterator: '迭代器',
  'Sends each item of an array (or each value of an object) on as its own message on True or False, then the incoming message on Success. RuleGo deprecates it for the for node.':
    '把数组的每一项（或对象的每个值）作为单独的消息在 True 或 False 上发出，然后在 Success 上传出收到的消息。RuleGo 已弃用它，改用 for 节点。',
  While: '条件循环',
  'Runs the body again and again while the condition holds (metadata _loopIndex); a break node in the body ends it. Success after the last iteration.':
    '条件成立时反复运行循环体（元数据 _loopIndex）；循环体中的 break 节点可结束循环。最后一次迭代后走 Success。',
  Break: '跳出循环',
  'Ends the enclosing for or while loop after this iteration (sets metadata _break to 1).':
    '在本次迭代后结束外层的 for 或 while 循环（把元数据 _break 设为 1）。',
  Function: '函数',
  'Calls a function registered in code by name; it decides the relation (Success, True, its own...).':
    '按名称调用在代码中注册的函数；由函数决定关系（Success、True 或自定义关系……）。',
  Comment: '注释',
  'A note on the chain for the editor; passes the message on unchanged with Success.':
    '写给编辑者的规则链备注；原样在 Success 上传出消息。',
  'Cache get': '读取缓存',
  'Reads cache keys into the metadata, into the data, or as the data.':
    '把缓存键读入元数据、并入数据或作为数据。',
  'Cache set': '写入缓存',
  'Writes cache keys, each with an optional TTL; the message passes on unchanged.':
    '写入缓存键，每个键可设置 TTL；消息原样传出。',
  'Cache delete': '删除缓存',
  'Deletes cache keys (a trailing * deletes every key with that prefix).':
    '删除缓存键（以 * 结尾时删除带该前缀的所有键）。',
  Database: '数据库',
  'Runs SQL on PostgreSQL, MySQL or SQLite: SELECT rows become the data, other statements report rowsAffected.':
    '在 PostgreSQL、MySQL 或 SQLite 上执行 SQL：SELECT 的结果行成为数据，其他语句报告 rowsAffected。',
  'Run command': '运行命令',
  'Runs a program on the server (only when engine.allow_exec is on); Failure when it exits with an error.':
    '在服务器上运行程序（仅当 engine.allow_exec 开启时）；程序出错退出时走 Failure。',
  'SSH command': 'SSH 命令',
  'Runs a command on another host over SSH (only when engine.allow_ssh is on).':
    '通过 SSH 在另一台主机上运行命令（仅当 engine.allow_ssh 开启时）。',
  'MQTT publish': 'MQTT 发布',
  'Publishes the message data to an MQTT topic.': '把消息数据发布到一个 MQTT 主题。',
  'Send email': '发送邮件',
  'Sends an email over SMTP; subject and body take ${...} from the message.':
    '通过 SMTP 发送邮件；主题和正文中的 ${...} 取自消息。',
  'TCP/UDP send': 'TCP/UDP 发送',
  'Sends the data over TCP or UDP: binary data as it is, text and JSON with a newline after it.':
    '通过 TCP 或 UDP 发送数据：二进制数据原样发送，文本和 JSON 后面加一个换行。',
  'WebSocket send': 'WebSocket 发送',
  'Sends the data as a WebSocket frame to a server.': '把数据作为 WebSocket 帧发送到服务器。',
  'AI agent': 'AI 智能体',
  'An LLM agent that calls tools until it can answer; its answer is the output data.':
    '调用工具直到能够回答的 LLM 智能体；它的回答就是输出数据。',
  LLM: '大语言模型',
  'Calls a language model once and outputs its reply.': '调用一次语言模型并输出它的回复。',
};
