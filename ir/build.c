/* Node construction: hash-consing and constant folding, and the dead-node clean-up. */
#include "build.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double ir_eval_op(IrOp op, double a, double b, double c)
{
    switch (op) {
    case N_NEG: return -a;
    case N_NOT: return a == 0.0 ? 1.0 : 0.0;
    case N_SQRT: return sqrt(a);
    case N_RSQRT: return 1.0 / sqrt(a);
    case N_EXP: return exp(a);
    case N_LOG: return log(a);
    case N_SIN: return sin(a);
    case N_COS: return cos(a);
    case N_ABS: return fabs(a);
    case N_FLOOR: return floor(a);
    case N_TANH: return tanh(a);
    case N_CBRT: return cbrt(a);
    case N_EXP2: return exp2(a);
    case N_LOG2: return log2(a);
    case N_ROUND: return round(a);
    case N_CEIL: return ceil(a);
    case N_TRUNC: return trunc(a);
    case N_SIGN: return (a > 0.0) - (a < 0.0);
    case N_ADD: return a + b;
    case N_SUB: return a - b;
    case N_MUL: return a * b;
    case N_DIV: return a / b;
    case N_POW: return pow(a, b);
    case N_MIN: return fmin(a, b);
    case N_MAX: return fmax(a, b);
    case N_ATAN2: return atan2(a, b);
    case N_FMOD: return fmod(a, b);
    case N_HYPOT: return hypot(a, b);
    case N_LT: return a < b;
    case N_LE: return a <= b;
    case N_GT: return a > b;
    case N_GE: return a >= b;
    case N_EQ: return a == b;
    case N_NE: return a != b;
    case N_AND: return a != 0.0 && b != 0.0;
    case N_OR: return a != 0.0 || b != 0.0;
    case N_SELECT: return a != 0.0 ? b : c;
    case N_CLAMP: return fmin(fmax(a, b), c);
    default: return 0.0;
    }
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t node_hash(const IrNode *n)
{
    uint64_t h = (uint64_t)n->op;
    uint64_t bits;
    memcpy(&bits, &n->value, sizeof bits);
    h = mix(h, bits);
    h = mix(h, (uint64_t)(uint32_t)n->a);
    h = mix(h, (uint64_t)(uint32_t)n->b);
    h = mix(h, (uint64_t)(uint32_t)n->c);
    h = mix(h, (uint64_t)(uint32_t)n->param);
    h = mix(h, (uint64_t)(uint32_t)n->field);
    h = mix(h, (uint64_t)(uint32_t)n->level);
    for (int d = 0; d < 3; d++)
        h = mix(h, (uint64_t)(uint32_t)n->off[d]);
    return h;
}

/* Constants compare by bit pattern, so 0.0 and -0.0 stay apart and NaN equals itself. */
static int node_same(const IrNode *x, const IrNode *y)
{
    return x->op == y->op && memcmp(&x->value, &y->value, sizeof x->value) == 0 &&
           x->a == y->a && x->b == y->b && x->c == y->c && x->param == y->param &&
           x->field == y->field && x->level == y->level && x->off[0] == y->off[0] &&
           x->off[1] == y->off[1] && x->off[2] == y->off[2];
}

void irb_begin(IrBuilder *b, IrStage *stage, Arena *arena)
{
    b->stage = stage;
    b->arena = arena;
    b->tcap = 64;
    b->table = arena_alloc(arena, sizeof(int) * (size_t)b->tcap);
}

static void rehash(IrBuilder *b)
{
    int cap = b->tcap * 2;
    int *t = arena_alloc(b->arena, sizeof(int) * (size_t)cap);
    for (int i = 0; i < b->stage->nnodes; i++) {
        size_t h = (size_t)node_hash(&b->stage->nodes[i]) & (size_t)(cap - 1);
        while (t[h])
            h = (h + 1) & (size_t)(cap - 1);
        t[h] = i + 1;
    }
    b->table = t;
    b->tcap = cap;
}

/* Returns the index of a node equal to proto, adding it when there is none. */
static int intern(IrBuilder *b, IrNode proto)
{
    IrStage *s = b->stage;
    size_t h = (size_t)node_hash(&proto) & (size_t)(b->tcap - 1);
    while (b->table[h]) {
        int i = b->table[h] - 1;
        if (node_same(&s->nodes[i], &proto))
            return i;
        h = (h + 1) & (size_t)(b->tcap - 1);
    }
    int idx = s->nnodes;
    *ARENA_PUSH(b->arena, s->nodes, s->nnodes, s->cap_nodes) = proto;
    b->table[h] = idx + 1;
    if (2 * s->nnodes >= b->tcap)
        rehash(b);
    return idx;
}

static IrNode blank(IrOp op)
{
    IrNode n;
    memset(&n, 0, sizeof n);
    n.op = op;
    n.a = n.b = n.c = -1;
    n.param = n.field = -1;
    return n;
}

int irb_const(IrBuilder *b, double value)
{
    IrNode n = blank(N_CONST);
    n.value = value;
    return intern(b, n);
}

int irb_param(IrBuilder *b, int param)
{
    IrNode n = blank(N_PARAM);
    n.param = param;
    return intern(b, n);
}

int irb_builtin(IrBuilder *b, IrOp op, int axis)
{
    IrNode n = blank(op);
    n.param = axis;
    return intern(b, n);
}

int irb_read(IrBuilder *b, int field, int level, const int off[3])
{
    IrNode n = blank(N_READ);
    n.field = field;
    n.level = level;
    for (int d = 0; d < 3; d++)
        n.off[d] = off[d];
    return intern(b, n);
}

static int is_const(const IrBuilder *b, int i, double v)
{
    const IrNode *n = &b->stage->nodes[i];
    return n->op == N_CONST && n->value == v;
}

static int commutative(IrOp op)
{
    return op == N_ADD || op == N_MUL || op == N_MIN || op == N_MAX || op == N_EQ ||
           op == N_NE || op == N_AND || op == N_OR;
}

int irb_op(IrBuilder *b, IrOp op, int a, int bb, int c)
{
    int arity = ir_op_arity(op);
    if (a < 0 || (arity >= 2 && bb < 0) || (arity >= 3 && c < 0))
        return -1;
    const IrNode *nodes = b->stage->nodes;
    int all_const = nodes[a].op == N_CONST && (arity < 2 || nodes[bb].op == N_CONST) &&
                    (arity < 3 || nodes[c].op == N_CONST);
    if (all_const)
        return irb_const(b, ir_eval_op(op, nodes[a].value, arity >= 2 ? nodes[bb].value : 0,
                                       arity >= 3 ? nodes[c].value : 0));
    /* Identities that hold exactly in IEEE arithmetic (up to the sign of a zero sum). */
    switch (op) {
    case N_ADD:
        if (is_const(b, bb, 0.0)) return a;
        if (is_const(b, a, 0.0)) return bb;
        break;
    case N_SUB:
        if (is_const(b, bb, 0.0)) return a;
        break;
    case N_MUL:
        if (is_const(b, bb, 1.0)) return a;
        if (is_const(b, a, 1.0)) return bb;
        break;
    case N_DIV:
        if (is_const(b, bb, 1.0)) return a;
        break;
    case N_NEG:
        if (nodes[a].op == N_NEG) return nodes[a].a;
        break;
    case N_SELECT:
        if (nodes[a].op == N_CONST) return nodes[a].value != 0.0 ? bb : c;
        if (bb == c) return bb;
        break;
    default:
        break;
    }
    IrNode n = blank(op);
    n.a = a;
    if (arity >= 2) {
        n.b = bb;
        if (commutative(op) && n.b < n.a) {
            n.a = bb;
            n.b = a;
        }
    }
    if (arity >= 3)
        n.c = c;
    return intern(b, n);
}

void irb_write(IrBuilder *b, int field, int node, Loc loc)
{
    IrStage *s = b->stage;
    IrWrite *w = ARENA_PUSH(b->arena, s->writes, s->nwrites, s->cap_writes);
    w->field = field;
    w->node = node;
    w->loc = loc;
}

void ir_stage_compact(IrStage *s, Arena *arena)
{
    int n = s->nnodes;
    if (n == 0)
        return;
    int *keep = calloc((size_t)n, sizeof *keep);
    int *map = malloc(sizeof *map * (size_t)n);
    if (!keep || !map) {
        fputs("stencilc: out of memory\n", stderr);
        exit(3);
    }
    for (int w = 0; w < s->nwrites; w++)
        if (s->writes[w].node >= 0)
            keep[s->writes[w].node] = 1;
    /* Operands come before their users, so one backward sweep marks everything needed. */
    for (int i = n - 1; i >= 0; i--) {
        if (!keep[i])
            continue;
        const IrNode *x = &s->nodes[i];
        if (x->a >= 0) keep[x->a] = 1;
        if (x->b >= 0) keep[x->b] = 1;
        if (x->c >= 0) keep[x->c] = 1;
    }
    IrNode *out = arena_alloc(arena, sizeof *out * (size_t)n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        IrNode x = s->nodes[i];
        if (x.a >= 0) x.a = map[x.a];
        if (x.b >= 0) x.b = map[x.b];
        if (x.c >= 0) x.c = map[x.c];
        x.uses = 0;
        map[i] = m;
        out[m++] = x;
    }
    for (int w = 0; w < s->nwrites; w++) {
        if (s->writes[w].node >= 0) {
            s->writes[w].node = map[s->writes[w].node];
            out[s->writes[w].node].uses++;
        }
    }
    for (int i = 0; i < 3; i++)
        s->radius[i] = 0;
    for (int i = 0; i < m; i++) {
        const IrNode *x = &out[i];
        if (x->a >= 0) out[x->a].uses++;
        if (x->b >= 0) out[x->b].uses++;
        if (x->c >= 0) out[x->c].uses++;
        if (x->op == N_READ)
            for (int d = 0; d < 3; d++) {
                int r = abs(x->off[d]);
                if (r > s->radius[d])
                    s->radius[d] = r;
            }
    }
    s->nodes = out;
    s->nnodes = m;
    s->cap_nodes = n;
    free(keep);
    free(map);
}
