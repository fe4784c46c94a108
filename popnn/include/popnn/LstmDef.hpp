// The units of a basic LSTM cell, naming the slices of the outermost dimension of LSTM weights
// and biases (see LstmParams::cellOrder).
#pragma once

/// One unit of a basic LSTM cell: a gate or the candidate cell state, each with its own input
/// weights, recurrent weights and bias.
enum BasicLstmCellUnit {
  BASIC_LSTM_CELL_FORGET_GATE,
  BASIC_LSTM_CELL_INPUT_GATE,
  BASIC_LSTM_CELL_CANDIDATE,
  BASIC_LSTM_CELL_OUTPUT_GATE,
  BASIC_LSTM_CELL_NUM_UNITS
};
