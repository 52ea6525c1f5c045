// Budgets over REST: the `budgets` list of the config file, edited like every other section (the
// write is validated and atomic, and clustered instances see it), shown with what each has spent.
import type { ConfigStore } from '../../config/config-store.ts';
import type { BudgetConfig } from '../../config/schema.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import type { Budgets } from '../../usage/budgets.ts';
import type { BudgetBody, BudgetReplaceBody, BudgetView } from './budgets.schema.ts';

/** A budget as written to the file: no unset fields. */
function toFile(budget: BudgetConfig): Record<string, unknown> {
  return Object.fromEntries(Object.entries(budget).filter(([, value]) => value !== undefined));
}

export class BudgetsService {
  constructor(
    private readonly store: ConfigStore,
    private readonly budgets: Budgets,
  ) {}

  async list(): Promise<BudgetView[]> {
    return Promise.all(this.store.current.budgets.map((budget) => this.view(budget)));
  }

  async get(id: string): Promise<BudgetView> {
    return this.view(this.find(id));
  }

  async create(body: BudgetBody): Promise<BudgetView> {
    await this.store.update((editor, current) => {
      if (current.budgets.some((budget) => budget.id === body.id))
        throw conflict(`budget "${body.id}" already exists`);
      editor.set(['budgets'], [...current.budgets.map(toFile), toFile(body)]);
    });
    return this.get(body.id);
  }

  async replace(id: string, body: BudgetReplaceBody): Promise<BudgetView> {
    if (body.id !== undefined && body.id !== id)
      throw invalid(`id: "${body.id}" is not the budget's id "${id}"`);
    await this.store.update((editor, current) => {
      const index = current.budgets.findIndex((budget) => budget.id === id);
      if (index < 0) throw notFound(`budget "${id}" not found`);
      editor.set(['budgets', index], toFile({ ...body, id }));
    });
    return this.get(id);
  }

  async remove(id: string): Promise<void> {
    await this.store.update((editor, current) => {
      const index = current.budgets.findIndex((budget) => budget.id === id);
      if (index < 0) throw notFound(`budget "${id}" not found`);
      editor.delete(['budgets', index]);
    });
  }

  private find(id: string): BudgetConfig {
    const budget = this.store.current.budgets.find((candidate) => candidate.id === id);
    if (!budget) throw notFound(`budget "${id}" not found`);
    return budget;
  }

  private async view(budget: BudgetConfig): Promise<BudgetView> {
    return { ...budget, ...(await this.budgets.status(budget)) };
  }
}
