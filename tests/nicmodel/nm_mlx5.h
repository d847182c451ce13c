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

struct nm_mlx5_pb {
        /* firmware: PBMC (in cells) and PPTB */
        uint32_t port_buffer_cells;
        struct {
                uint32_t size, xoff, xon;       /* cells */
                bool lossy;
        } buf[NM_MLX5_BUFFERS];
        uint8_t prio2buffer[8];
        /* driver: priv->dcbx */
        bool manual_buffer;
        uint32_t xoff;                          /* the last calculate_xoff() result (priv->dcbx.xoff) */
};

/* What the driver's own state tells the buffer code: the cable length, the port's PFC in firmware. */
struct nm_mlx5_port {
        uint32_t cable_len;                     /* priv->dcbx.cable_len */
        uint8_t fw_pfc_en;                      /* PFCC */
};

void nm_mlx5_pb_init(struct nm_mlx5_pb *pb);
/* mlx5e_port_manual_buffer_config(); pfc_en: the PFC of the request (change & PFC). */
int nm_mlx5_pb_config(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                      uint32_t change, uint8_t pfc_en, const uint32_t *buffer_size, const uint8_t *prio2buffer);
/* mlx5e_dcbnl_getbuffer() / mlx5e_dcbnl_setbuffer(). */
void nm_mlx5_pb_get(const struct nm_mlx5_pb *pb, struct dcbnl_buffer *b);
int nm_mlx5_pb_set(struct nm *m, struct nm_dev *d, struct nm_mlx5_pb *pb, const struct nm_mlx5_port *port,
                   const struct dcbnl_buffer *b);
void nm_mlx5_pb_dump(const struct nm_mlx5_pb *pb, FILE *f);
