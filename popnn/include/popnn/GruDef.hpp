// The units of a basic GRU cell, naming the slices of the outermost dimension of GRU weights and
// biases (see GruParams::cellOrder).
#pragma once

/// One unit of a basic GRU cell: a gate or the candidate, each with its own input weights,
/// recurrent weights and bias.
enum BasicGruCellUnit {
  BASIC_GRU_CELL_RESET_GATE = 0,
  BASIC_GRU_CELL_UPDATE_GATE = 1,
  BASIC_GRU_CELL_CANDIDATE = 2,
  BASIC_GRU_CELL_NUM_UNITS = 3
};
