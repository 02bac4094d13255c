// Tool input schemas as Zod writes them (z.toJSONSchema of the zod pinned in tests/world/package.json),
// for the world-schemas browser suite: the shapes TypeScript MCP servers declare with Zod. Each
// entry: {name, schema}; `zodSchemas(z)` takes the installed zod, so nothing here is stored output.
export function zodSchemas(z) {
  const tools = {
    optionals: z.object({
      query: z.string().describe('What to look for'),
      limit: z.number().int().optional(),
      cursor: z.string().nullable().optional(),
      strict: z.boolean().default(false),
      note: z.string().max(40).nullish(),
    }),
    enums: z.object({
      color: z.enum(['red', 'green', 'blue']),
      mode: z.enum(['fast', 'deep']).default('fast'),
      level: z.union([z.literal('debug'), z.literal('info'), z.literal('warn')]).default('info'),
      status: z.literal('open'),
      colors: z.array(z.enum(['red', 'green', 'blue'])).optional(),
    }),
    pets: z.object({
      name: z.string(),
      pet: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('cat'), lives: z.number().int().min(0).max(9).default(9) }),
        z.object({ kind: z.literal('dog'), good: z.boolean().default(true), breed: z.string().optional() }),
      ]),
    }),
    nested: z.object({
      owner: z.object({ name: z.string().min(1).describe('Full name'), age: z.number().int().min(0).max(150) }),
      address: z.object({ street: z.string(), city: z.string(), postcode: z.string().regex(/^[0-9]{5}$/).optional() }).optional(),
      members: z.array(z.object({ name: z.string(), role: z.enum(['owner', 'member']).default('member') })).max(10).optional(),
      tags: z.array(z.string()).default([]),
      labels: z.record(z.string(), z.string()).optional(),
      scores: z.record(z.string(), z.number()).nullable().optional(),
    }),
    times: z.object({
      when: z.iso.datetime(),
      day: z.iso.date(),
      at: z.iso.time().optional(),
      every: z.iso.duration().optional(),
    }),
    constrained: z.object({
      code: z.string().min(3).max(8).regex(/^[A-Z]+$/),
      count: z.number().int().positive().max(1000).default(10),
      step: z.number().min(0).lt(10).multipleOf(0.25).default(0.5),
      email: z.email(),
      url: z.url(),
      id: z.uuid().optional(),
    }),
    defaults: z.object({
      title: z.string().default('Untitled').describe('The **title** shown in lists'),
      page: z.number().int().min(1).default(1),
      include: z.array(z.enum(['a', 'b', 'c'])).default(['c', 'a']),
      owner: z.object({ name: z.string(), age: z.number().int() }).default({ name: 'Ada', age: 36 }),
    }),
    unions: z.object({
      target: z.union([z.string(), z.number()]),
      ids: z.union([z.string(), z.array(z.string())]).optional(),
      tuple: z.tuple([z.string(), z.number()]).optional(),
    }),
  };
  const out = [];
  for (const [name, schema] of Object.entries(tools)) {
    // io: 'input', as MCP servers describe what a call may send (a field with a default is optional).
    out.push({ name: 'zod_' + name, schema: z.toJSONSchema(schema, { io: 'input' }) });
    // The draft-07 output too (what zod-to-json-schema and older SDKs send), for two of them.
    if (name === 'optionals' || name === 'nested') out.push({ name: 'zod_' + name + '_draft7', schema: z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }) });
  }
  return out;
}
