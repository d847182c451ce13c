/* SPDX-License-Identifier: MIT */
/*
 * ConnectX port receive buffers as mlx5_core manages them, from
 * drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c
 * @ 06449e9fba1e3f505f26f7d36e51c8127bf02192 and en_dcbnl.c @ 84a83eba5c5a:
 *
 *   - a ConnectX without SBCAM: the cell is 1 << MLX5E_BUFFER_CELL_SHIFT = 128
 *     bytes (mlx5e_query_port_buffers_cell_size()) and port_update_shared_buffer()
 *     and port_update_pool_cfg() do nothing (!MLX5_CAP_GEN(mdev, sbcam_reg));
 *   - the firmware manages the buffers until the first dcbnl_setbuffer that changes
 *     something sets priv->dcbx.manual_buffer (nothing clears it but a netdev init);
 *     in manual mode a new cable length or PFC recomputes the lossless buffers'
 *     thresholds (update_xoff_threshold()), and refuses what does not fit;
 *   - sizes are floored to whole cells when written (port_set_buffer(): do_div).
 *
 * Newer kernels ask the firmware who owns the buffers instead of manual_buffer
 * (upstream 451d2849ea66, mlx5_query_port_buffer_ownership(): PFCC buf_ownership,
 * SW_OWNED only; UNKNOWN without PCAM buffer_ownership): nm_mlx5.h enum nm_mlx5_owner.
 * The arithmetic is the same. With SBCAM the cell is the firmware's
 * (mlx5e_query_port_buffers_cell_size()); port_update_shared_buffer() and
 * port_update_pool_cfg() then resize the shared pools (SBPR, SBCM): not modelled.
 */
#include "common/util.h"
#include "tests/nicmodel/nm_mlx5.h"

#define MINIMUM_MAX_MTU 9216            /* port_buffer.c */
#define SPEED_40000 40000

/* What the firmware holds at driver load (PBMC of a 100G ConnectX: two lossy buffers, the rest empty). */
void nm_mlx5_pb_init(struct nm_mlx5_pb *pb, enum nm_mlx5_owner owner, uint32_t cell)
{
        memset(pb, 0, sizeof(*pb));
        pb->owner = owner;
        pb->cell = cell;
        pb->port_buffer_cells = 524288 / cell;
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                pb->buf[i].lossy = true;
        pb->buf[0].size = pb->buf[1].size = 130944 / cell;
}

/* FLAG: priv->dcbx.manual_buffer; FW: buffer_ownership == MLX5_BUF_OWNERSHIP_SW_OWNED; UNKNOWN: never. */
bool nm_mlx5_pb_recompute(const struct nm_mlx5_pb *pb)
{
        return pb->owner != NM_MLX5_OWNER_UNKNOWN && pb->manual_buffer;
}

/* A copy of the firmware's buffers in bytes, as mlx5e_port_query_buffer() returns them. */
struct port_buffer {
        uint32_t cell;                  /* port_buff_cell_sz */
        uint32_t port_buffer_size, headroom_size, spare_buffer_size;
        struct {
                uint32_t size, xoff, xon;
                bool lossy;
        } buffer[NM_MLX5_BUFFERS];
};

static void query_buffer(const struct nm_mlx5_pb *pb, struct port_buffer *b)
{
        memset(b, 0, sizeof(*b));
        b->cell = pb->cell;
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                b->buffer[i].size = pb->buf[i].size * pb->cell;
                b->buffer[i].xoff = pb->buf[i].xoff * pb->cell;
                b->buffer[i].xon = pb->buf[i].xon * pb->cell;
                b->buffer[i].lossy = pb->buf[i].lossy;
                b->headroom_size += b->buffer[i].size;
        }
        b->port_buffer_size = pb->port_buffer_cells * pb->cell;
        b->spare_buffer_size = b->port_buffer_size - b->headroom_size;     /* no internal buffers here */
}

/* port_set_buffer(): bytes floored to cells. */
static void set_buffer(struct nm_mlx5_pb *pb, const struct port_buffer *b)
{
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                pb->buf[i].size = b->buffer[i].size / pb->cell;
                pb->buf[i].xoff = b->buffer[i].xoff / pb->cell;
                pb->buf[i].xon = b->buffer[i].xon / pb->cell;
                pb->buf[i].lossy = b->buffer[i].lossy;
        }
}

/* calculate_xoff(): xoff = ((301 + 2.16 * len [m]) * speed [Gbps] + 2.72 MTU [B]), u32; speed at least 40G. */
static uint32_t calculate_xoff(const struct nm_dev *d, uint32_t cable_len, unsigned mtu)
{
        uint32_t speed = d->speed_mbps ? d->speed_mbps : SPEED_40000;      /* mlx5e_port_linkspeed() failed */

        if (speed < SPEED_40000)
                speed = SPEED_40000;
        return (301 + 216 * cable_len / 100) * speed / 1000 + 272 * mtu / 100;
}

static int update_xoff_threshold(struct nm *m, const struct nm_dev *d, struct port_buffer *b, uint32_t xoff,
                                 unsigned max_mtu)
{
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                if (b->buffer[i].lossy) {
                        b->buffer[i].xoff = 0;
                        b->buffer[i].xon = 0;
                        continue;
                }
                if (b->buffer[i].size < xoff + max_mtu + b->cell) {
                        nm_logf(m, "%s: buffer_size[%u]=%u is not enough for lossless buffer", d->name, i,
                                b->buffer[i].size);
                        return -ENOMEM;
                }
                b->buffer[i].xoff = b->buffer[i].size - xoff;
                b->buffer[i].xon = b->buffer[i].xoff - max_mtu;
        }
        return 0;
}

/* update_buffer_lossy(): a buffer is lossless when at least one PFC priority maps to it. */
static int update_buffer_lossy(struct nm *m, const struct nm_dev *d, unsigned max_mtu, uint8_t pfc_en,
                               const uint8_t *buffer, uint32_t xoff, struct port_buffer *b, bool *change)
{
        bool changed = false;

        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                unsigned prio_count = 0, lossy_count = 0;
                bool lossy;

                for (unsigned prio = 0; prio < 8; prio++) {
                        if (buffer[prio] != i)
                                continue;
                        prio_count++;
                        lossy_count += !(pfc_en & (1u << prio));
                }
                lossy = lossy_count == prio_count;
                if (lossy != b->buffer[i].lossy) {
                        b->buffer[i].lossy = lossy;
                        changed = true;
                }
        }
        if (!changed)
                return 0;
        *change = true;
        return update_xoff_threshold(m, d, b, xoff, max_mtu);
}

/* The SIZE part: a lossless buffer is never 0; what the sizes add up to fits the spare room. */
static int new_sizes(struct port_buffer *b, const uint32_t *buffer_size)
{
        uint32_t total_used = 0;

        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                if (!b->buffer[i].lossy && !buffer_size[i])
                        return -EINVAL;         /* "lossless buffer[%d] size cannot be zero" */
                b->buffer[i].size = buffer_size[i];
                total_used += buffer_size[i];
        }
        if (total_used > b->headroom_size && total_used - b->headroom_size > b->spare_buffer_size)
                return -EINVAL;
        return 0;
}

int nm_mlx5_pb_config(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                      uint32_t change, uint8_t pfc_en, const uint32_t *buffer_size, const uint8_t *prio2buffer)
{
        unsigned max_mtu = d->max_mtu > MINIMUM_MAX_MTU ? d->max_mtu : MINIMUM_MAX_MTU;
        uint32_t xoff = calculate_xoff(d, port->cable_len, d->mtu);
        bool update_buffer = false;
        struct port_buffer b;
        int err = 0;

        query_buffer(pb, &b);
        if (change & NM_MLX5_BUFFER_CABLE_LEN) {
                update_buffer = true;
                err = update_xoff_threshold(m, d, &b, xoff, max_mtu);
        }
        if (!err && (change & NM_MLX5_BUFFER_PFC))
                err = update_buffer_lossy(m, d, max_mtu, pfc_en, pb->prio2buffer, xoff, &b, &update_buffer);
        /* fill_pfc_en(): no global pause in this model, so the firmware's PFC */
        if (!err && (change & NM_MLX5_BUFFER_PRIO2BUFFER))
                err = update_buffer_lossy(m, d, max_mtu, port->fw_pfc_en, prio2buffer, xoff, &b, &update_buffer);
        if (!err && (change & NM_MLX5_BUFFER_SIZE)) {
                update_buffer = true;
                err = new_sizes(&b, buffer_size);
                if (!err)
                        err = update_xoff_threshold(m, d, &b, xoff, max_mtu);
        }
        if (!err && !update_buffer && xoff != pb->xoff) {
                update_buffer = true;
                err = update_xoff_threshold(m, d, &b, xoff, max_mtu);
        }
        if (err)
                return err;
        pb->xoff = xoff;
        if (update_buffer)
                set_buffer(pb, &b);
        if (update_buffer && pb->owner != NM_MLX5_OWNER_FLAG)
                pb->manual_buffer = true;       /* the PBMC write went through: the firmware's SW_OWNED */
        if (change & NM_MLX5_BUFFER_PRIO2BUFFER)
                memcpy(pb->prio2buffer, prio2buffer, sizeof(pb->prio2buffer));
        return 0;
}

void nm_mlx5_pb_get(const struct nm_mlx5_pb *pb, struct dcbnl_buffer *b)
{
        memset(b, 0, sizeof(*b));
        memcpy(b->prio2buffer, pb->prio2buffer, sizeof(b->prio2buffer));
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                b->buffer_size[i] = pb->buf[i].size * pb->cell;
        b->total_size = pb->port_buffer_cells * pb->cell;
}

/* mlx5e_dcbnl_setbuffer(): nothing that differs, nothing done (and no manual mode). */
int nm_mlx5_pb_set(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                   const struct dcbnl_buffer *b)
{
        uint32_t changed = 0;

        if (memcmp(b->prio2buffer, pb->prio2buffer, sizeof(pb->prio2buffer)))
                changed |= NM_MLX5_BUFFER_PRIO2BUFFER;
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                if (pb->buf[i].size * pb->cell != b->buffer_size[i])
                        changed |= NM_MLX5_BUFFER_SIZE;
        if (!changed)
                return 0;
        if (!pb->manual_buffer && pb->owner == NM_MLX5_OWNER_FLAG)
                nm_logf(m, "%s: port buffers in manual mode from now on", d->name);
        if (pb->owner == NM_MLX5_OWNER_FLAG)
                pb->manual_buffer = true;       /* before the config, failed or not (the bug 451d2849ea66 fixed) */
        return nm_mlx5_pb_config(m, d, pb, port, changed, 0, b->buffer_size, b->prio2buffer);
}

void nm_mlx5_pb_dump(const struct nm_mlx5_pb *pb, FILE *f)
{
        uint8_t lossless = 0;
        uint32_t v[NM_MLX5_BUFFERS];

        static const char *const owned[] = { "firmware", "manual", "fw_owned", "sw_owned", "unknown", "unknown" };

        fprintf(f, "  buffers %s", owned[2 * pb->owner + pb->manual_buffer]);
        if (pb->cell != 128)
                fprintf(f, " cell %u", pb->cell);
        nm_dump_u8s(f, "prio2buffer", pb->prio2buffer, 8);
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++) {
                v[i] = pb->buf[i].size * pb->cell;
                lossless |= (uint8_t)(!pb->buf[i].lossy << i);
        }
        fprintf(f, " size");
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                fprintf(f, "%s%u", i ? "," : " ", v[i]);
        fprintf(f, " lossless 0x%02x xoff", lossless);
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                fprintf(f, "%s%u", i ? "," : " ", pb->buf[i].xoff * pb->cell);
        fprintf(f, " xon");
        for (unsigned i = 0; i < NM_MLX5_BUFFERS; i++)
                fprintf(f, "%s%u", i ? "," : " ", pb->buf[i].xon * pb->cell);
        fprintf(f, "\n");
}
