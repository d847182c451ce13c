/* SPDX-License-Identifier: MIT */
/*
 * The mlx5 model's port receive buffers (nm_mlx5_buffer.c), kept apart from the
 * rest of the driver (nm_mlx5.c): en/port_buffer.c and the buffer half of
 * en_dcbnl.c. Firmware registers (PBMC buffers in cells, PPTB priority -> buffer)
 * apart from the driver's priv->dcbx (manual_buffer, xoff).
 */
#pragma once

#include "tests/nicmodel/nicmodel.h"

#define NM_MLX5_BUFFERS 8                       /* MLX5E_MAX_NETWORK_BUFFER */

/* mlx5e_port_manual_buffer_config()'s change bits (en/port_buffer.h). */
#define NM_MLX5_BUFFER_CABLE_LEN (1u << 0)
#define NM_MLX5_BUFFER_PFC (1u << 1)
#define NM_MLX5_BUFFER_PRIO2BUFFER (1u << 2)
#define NM_MLX5_BUFFER_SIZE (1u << 3)

/*
 * Who decides, in mlx5e_dcbnl_ieee_setpfc(), whether a new cable length or PFC
 * recomputes the buffers (mlx5e_port_manual_buffer_config()):
 *   FLAG     before upstream 451d2849ea66: the driver's priv->dcbx.manual_buffer, set by
 *            the first dcbnl_setbuffer that changes something, even one that fails
 *   FW       451d2849ea66 ("net/mlx5e: Query FW for buffer ownership", 6.12.y and later)
 *            with a firmware that has PCAM buffer_ownership: mlx5_query_port_buffer_ownership()
 *            reads PFCC buf_ownership, FW_OWNED until a PBMC write by the driver succeeds
 *            (the commit: "if setting the buffer fails and we remain in FW ownership"),
 *            then SW_OWNED; only SW_OWNED recomputes
 *   UNKNOWN  451d2849ea66 with a firmware without that capability: the query says
 *            MLX5_BUF_OWNERSHIP_UNKNOWN, and setpfc never recomputes
 */
enum nm_mlx5_owner {
        NM_MLX5_OWNER_FLAG,
        NM_MLX5_OWNER_FW,
        NM_MLX5_OWNER_UNKNOWN,
};

struct nm_mlx5_pb {
        enum nm_mlx5_owner owner;
        uint32_t cell;                          /* priv->dcbx.port_buff_cell_sz */
        /* firmware: PBMC (in cells) and PPTB */
        uint32_t port_buffer_cells;
        struct {
                uint32_t size, xoff, xon;       /* cells */
                bool lossy;
        } buf[NM_MLX5_BUFFERS];
        uint8_t prio2buffer[8];
        /* FLAG: the driver's priv->dcbx.manual_buffer; FW, UNKNOWN: the firmware's PFCC buf_ownership is SW_OWNED */
        bool manual_buffer;
        uint32_t xoff;                          /* the last calculate_xoff() result (priv->dcbx.xoff) */
};

/* What the driver's own state tells the buffer code: the cable length, the port's PFC in firmware. */
struct nm_mlx5_port {
        uint32_t cable_len;                     /* priv->dcbx.cable_len */
        uint8_t fw_pfc_en;                      /* PFCC */
};

/*
 * The port's buffers at driver load. cell: mlx5e_query_port_buffers_cell_size(): 128
 * (1 << MLX5E_BUFFER_CELL_SHIFT) without MLX5_CAP_GEN(sbcam_reg), else SBCAM's
 * cap_cell_size (the model's variant "+sbcam" reports 256: a firmware's own figure).
 */
void nm_mlx5_pb_init(struct nm_mlx5_pb *pb, enum nm_mlx5_owner owner, uint32_t cell);
/* mlx5e_dcbnl_ieee_setpfc(): does a new cable length or PFC recompute the buffers? */
bool nm_mlx5_pb_recompute(const struct nm_mlx5_pb *pb);
/* mlx5e_port_manual_buffer_config(); pfc_en: the PFC of the request (change & PFC). */
int nm_mlx5_pb_config(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                      uint32_t change, uint8_t pfc_en, const uint32_t *buffer_size, const uint8_t *prio2buffer);
/* mlx5e_dcbnl_getbuffer() / mlx5e_dcbnl_setbuffer(). */
void nm_mlx5_pb_get(const struct nm_mlx5_pb *pb, struct dcbnl_buffer *b);
int nm_mlx5_pb_set(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                   const struct dcbnl_buffer *b);
void nm_mlx5_pb_dump(const struct nm_mlx5_pb *pb, FILE *f);
