// Drafts: what the user typed in a conversation, kept in localStorage until the server has it, so
// neither a reload nor a server that is down loses a message.
export interface Draft {
  text: string;
  images: string[];
}

const key = (agentId: string, sessionId: string) => `agent-service.draft.${agentId}.${sessionId}`;

export function loadDraft(agentId: string, sessionId: string): Draft {
  try {
    const value = JSON.parse(
      localStorage.getItem(key(agentId, sessionId)) ?? 'null',
    ) as Partial<Draft> | null;
    return {
      text: typeof value?.text === 'string' ? value.text : '',
      images: Array.isArray(value?.images) ? value.images : [],
    };
  } catch {
    return { text: '', images: [] };
  }
}

export function saveDraft(agentId: string, sessionId: string, draft: Draft): void {
  if (draft.text === '' && draft.images.length === 0) {
    localStorage.removeItem(key(agentId, sessionId));
    return;
  }
  try {
    localStorage.setItem(key(agentId, sessionId), JSON.stringify(draft));
  } catch {
    // Storage full (large pictures): keep at least the text.
    localStorage.setItem(key(agentId, sessionId), JSON.stringify({ text: draft.text, images: [] }));
  }
}
