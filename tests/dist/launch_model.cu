/* The distributed code's host side without a GPU or NCCL (issue 31): the emitted NAME_dist_*
 * functions (prefix p) linked with tests/dist/fake_cuda.cc, a fake CUDA runtime and NCCL that
 * only record what they are asked to do (launch_model.h). Every rank of a process grid runs in
 * turn in this one process; then
 *
 *   parity    every rank sends each peer, in order, messages of the sizes that peer receives
 *             from it (a rank that made one exchange more than its neighbour hung on the GPUs);
 *   coverage  the launches of the step kernel's copy with offset block numbers (the overlapped
 *             step's blocks way) cover every block of the kernel's grid, each as often as the
 *             whole-grid launches do, and none beyond it;
 *   streams   in an overlapped step the edges and the exchange go on the exchange's stream (the
 *             one created at the highest priority), the interior on the caller's;
 *   sent      and its edges, launched before the first send, hold every block that computes a
 *             layer that is sent.
 *
 * Built and run by tests/dist/test_launches.sh. Arguments: NX NY NZ PX PY PZ DEPTH STEPS
 * OVERLAP(0/1), run in the folder of p.cu (read for the kernels' parameters). Prints one line;
 * exits 1 on a failed check. */
#include <ctype.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "launch_model.h"
#include "p.h"

static int rank_, nranks_;
static int tile_[3], array_of_[3] = {-1, -1, -1}; /* read from p.cu by read_params */

/* ---- the checks ---- */
static int fail(const char *what)
{
    printf("FAIL rank %d of %d: %s\n", rank_, nranks_, what);
    return 1;
}

/* The number of parameters of each __global__ function of p.cu (to find an _off_ copy's
 * offsets among its arguments). */
static void read_params(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        exit(fail("cannot read p.cu"));
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, n);
    fclose(f);
    for (size_t at = 0; (at = text.find("__global__ void", at)) != std::string::npos; at++) {
        size_t open = text.find('(', at);
        if (text.compare(open - 17, 17, "__launch_bounds__") == 0) /* the bounds, then the name */
            open = text.find('(', text.find(')', open));
        size_t close = text.find(')', open), name_start = open;
        while (name_start > 0 && (isalnum((unsigned char)text[name_start - 1]) || text[name_start - 1] == '_'))
            name_start--;
        int params = 1;
        for (size_t i = open; i < close; i++)
            params += text[i] == ',';
        const std::string name = text.substr(name_start, open - name_start), list = text.substr(open, close - open);
        nparams_[name] = params;
        for (int d = 0; d < 3; d++) /* kir_offset_blocks's parameters, x's first */
            if (list.find(std::string("stc_boff") + "xyz"[d] + "_") != std::string::npos)
                offset_axes_[name].push_back(d);
    }
    /* the blocks way's tiles by array axis, and which grid axis holds each (p_dpart_) */
    size_t at = text.find("p_otile_[3] = {");
    if (at != std::string::npos)
        sscanf(text.c_str() + at, "p_otile_[3] = {%d, %d, %d}", &tile_[0], &tile_[1], &tile_[2]);
    for (int g = 0; g < 3; g++) {
        const std::string line = std::string("grid.") + "xyz"[g] + " = (unsigned)count[";
        at = text.find(line, text.find("p_dpart_("));
        if (at != std::string::npos)
            array_of_[g] = text[at + line.size()] - '0';
    }
}

/* The step kernel's whole grid (its own launches, or the copies' extent where every launch was
 * overlapped) and the kernel's name; false where the run launched no offset copy. */
static bool full_grid(dim3 &full, std::string &step)
{
    full = dim3(0, 0, 0);
    for (const Op &op : ops_)
        if (op.kind == Op::LAUNCH && op.name.size() > 5 && op.name.compare(op.name.size() - 5, 5, "_step") == 0)
            full = op.grid, step = op.name;
    bool copies = false;
    for (const Op &op : ops_)
        if (op.kind == Op::LAUNCH && op.offsets) {
            copies = true;
            if (step.empty()) {
                full.x = full.x > op.off[0] + op.grid.x ? full.x : op.off[0] + op.grid.x;
                full.y = full.y > op.off[1] + op.grid.y ? full.y : op.off[1] + op.grid.y;
                full.z = full.z > op.off[2] + op.grid.z ? full.z : op.off[2] + op.grid.z;
            }
        }
    return copies;
}

/* coverage: per block of the step kernel's grid, how often the run computed it */
static int check_coverage(void)
{
    dim3 full;
    std::string step;
    if (!full_grid(full, step))
        return 0;
    std::vector<int> count((size_t)full.x * full.y * full.z, 0);
    for (const Op &op : ops_) {
        if (op.kind != Op::LAUNCH)
            continue;
        if (op.name == step) {
            for (int &c : count)
                c++;
        } else if (op.offsets) {
            if (op.off[0] + op.grid.x > full.x || op.off[1] + op.grid.y > full.y || op.off[2] + op.grid.z > full.z)
                return fail("a launch of the offset copy reaches beyond the kernel's grid");
            for (unsigned z = op.off[2]; z < op.off[2] + op.grid.z; z++)
                for (unsigned y = op.off[1]; y < op.off[1] + op.grid.y; y++)
                    for (unsigned x = op.off[0]; x < op.off[0] + op.grid.x; x++)
                        count[((size_t)z * full.y + y) * full.x + x]++;
        }
    }
    for (int c : count)
        if (c != count[0])
            return fail("the offset copy's launches cover some blocks more often than others");
    return 0;
}

/* streams: an overlapped step is RECORD(caller's) WAIT(exchange's) [edges] [sends, receives]
 * RECORD(exchange's) [interior] WAIT(caller's): its edges and its exchange go on the exchange's
 * stream, its interior on the caller's */
static int check_streams(void)
{
    enum { NONE, EDGES, INTERIOR } phase = NONE;
    for (const Op &op : ops_) {
        if (op.kind == Op::WAIT)
            phase = op.stream == high_ ? EDGES : NONE;
        else if (op.kind == Op::RECORD && op.stream == high_ && phase == EDGES)
            phase = INTERIOR;
        else if ((op.kind == Op::SEND || op.kind == Op::RECV) && phase == EDGES && op.stream != high_)
            return fail("an overlapped exchange not on the exchange's stream");
        else if (op.kind == Op::LAUNCH && op.offsets && phase == EDGES && op.stream != high_)
            return fail("an edge launch not on the exchange's stream");
        else if (op.kind == Op::LAUNCH && op.offsets && phase == INTERIOR && op.stream == high_)
            return fail("the interior launched on the exchange's stream");
        else if (op.kind == Op::LAUNCH && op.offsets && phase == NONE)
            return fail("a launch of the offset copy outside an overlapped step");
    }
    return 0;
}

/* sent: in each overlapped step of the blocks way, the edge launches made before the first send
 * hold every block that computes a sent layer (along each axis with a peer, the width's layers
 * next to the deep-halo ones, on each side with a peer), whole along the other axes */
static int check_sent(const p_dist &d)
{
    dim3 full;
    std::string step;
    if (!full_grid(full, step))
        return 0;
    const unsigned dims[3] = {full.x, full.y, full.z};
    int grid_of[3] = {-1, -1, -1};
    for (int g = 0; g < 3; g++)
        if (array_of_[g] >= 0)
            grid_of[array_of_[g]] = g;
    std::vector<char> edge((size_t)full.x * full.y * full.z, 0);
    bool open = false;
    for (const Op &op : ops_) {
        if (op.kind == Op::WAIT && op.stream == high_) {
            std::fill(edge.begin(), edge.end(), 0);
            open = true;
        } else if (open && op.kind == Op::LAUNCH && op.offsets) {
            for (unsigned z = op.off[2]; z < op.off[2] + op.grid.z; z++)
                for (unsigned y = op.off[1]; y < op.off[1] + op.grid.y; y++)
                    for (unsigned x = op.off[0]; x < op.off[0] + op.grid.x; x++)
                        edge[((size_t)z * full.y + y) * full.x + x] = 1;
        } else if (open && op.kind == Op::SEND) {
            open = false;
            if (std::find(edge.begin(), edge.end(), 1) == edge.end())
                continue; /* the planes way */
            for (int a = 0; a < 3; a++) {
                const int g = grid_of[a], t = tile_[a], w = d.width[a];
                for (int side = 0; side < 2 && g >= 0 && t > 0; side++) {
                    if ((side ? d.peer_hi[a] : d.peer_lo[a]) < 0)
                        continue;
                    const int first = side ? d.local[a] - d.ext_hi[a] - w : d.ext_lo[a];
                    for (size_t i = 0; i < edge.size(); i++) {
                        const unsigned b[3] = {(unsigned)(i % full.x), (unsigned)(i / full.x % full.y),
                                               (unsigned)(i / ((size_t)full.x * full.y))};
                        const int lo = (int)b[g] * t, hi = lo + t; /* its layers along a */
                        if (lo < first + w && hi > first && b[g] < dims[g] && !edge[i])
                            return fail("a block that computes a sent layer is not among the edges");
                    }
                }
            }
        }
    }
    return 0;
}

typedef std::vector<size_t> Sizes;

int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: launch_model NX NY NZ PX PY PZ DEPTH STEPS OVERLAP\n");
        return 2;
    }
    int global[3], procs[3];
    for (int a = 0; a < 3; a++) {
        global[a] = atoi(argv[1 + a]);
        procs[a] = atoi(argv[4 + a]);
    }
    const int depth = atoi(argv[7]), steps = atoi(argv[8]), overlap = atoi(argv[9]);
    read_params("p.cu");
    nranks_ = procs[0] * procs[1] * procs[2];
    std::map<std::pair<int, int>, Sizes> sent, received; /* (from, to) -> sizes in order */
    int overlapped = 0, bad = 0;
    for (rank_ = 0; rank_ < nranks_ && !bad; rank_++) {
        ops_.clear();
        ncclComm comm = {rank_, nranks_};
        const int coords[3] = {rank_ % procs[0], rank_ / procs[0] % procs[1], rank_ / (procs[0] * procs[1])};
        p_dist d;
        cudaStream_t stream = (cudaStream_t)&d; /* any distinct handle */
        int st = p_dist_init(&d, global, procs, coords, depth, &comm, stream);
        if (st != P_DIST_OK) {
            printf("FAIL rank %d: p_dist_init: %s\n", rank_, d.message);
            return 1;
        }
        p_dist_set_overlap(&d, overlap);
        overlapped += d.overlap;
        const size_t elems = p_dist_buffer_elems(&d);
        p_fields f;
        memset(&f, 0, sizeof f);
        std::vector<void *> owned;
#define ALLOC_STATE(m, L) for (int l = 0; l < L; l++) { cudaMalloc((void **)&f.m[l], elems * sizeof(p_real)); owned.push_back(f.m[l]); }
#define ALLOC_COEF(m, L) { void *c; cudaMalloc(&c, elems * sizeof(p_real)); f.m = (p_real *)c; owned.push_back(c); }
        P_STATE_FIELDS(ALLOC_STATE)
        P_COEF_FIELDS(ALLOC_COEF)
        p_params prm;
        memset(&prm, 0, sizeof prm);
        void *work = NULL;
        cudaMalloc(&work, p_workspace_bytes(d.local[0], d.local[1], d.local[2]) + 1);
        ops_.clear(); /* the run's operations only */
        st = p_dist_run(&d, &f, &prm, steps, work, stream);
        if (st != P_DIST_OK) {
            printf("FAIL rank %d: p_dist_run: %s\n", rank_, d.message);
            return 1;
        }
        for (const Op &op : ops_)
            if (op.kind == Op::SEND)
                sent[std::make_pair(rank_, op.peer)].push_back(op.count);
            else if (op.kind == Op::RECV)
                received[std::make_pair(op.peer, rank_)].push_back(op.count);
        bad = check_coverage() || (d.overlap && (check_streams() || check_sent(d)));
        for (void *p : owned)
            cudaFree(p);
        cudaFree(work);
        p_dist_free(&d);
    }
    if (bad)
        return 1;
    for (const auto &kv : sent)
        if (kv.first.first != kv.first.second && received[kv.first] != kv.second) {
            printf("FAIL: rank %d sends rank %d %zu messages, which receives %zu from it (or other sizes)\n",
                   kv.first.first, kv.first.second, kv.second.size(), received[kv.first].size());
            return 1;
        }
    for (const auto &kv : received)
        if (kv.first.first != kv.first.second && !sent.count(kv.first)) {
            printf("FAIL: rank %d waits for messages rank %d never sends\n", kv.first.second, kv.first.first);
            return 1;
        }
    printf("ok %dx%dx%d over %dx%dx%d depth %d, %d steps: %d of %d ranks overlapped, %zu message streams match\n",
           global[0], global[1], global[2], procs[0], procs[1], procs[2], depth, steps, overlapped, nranks_,
           sent.size());
    return 0;
}
