// Starting positions, as the rules files write them, for the "how to play"
// pages (a live game always draws the position the server sends).
// Each army: "<letter><cell> ..." in the rules file's own order.

const ULTIMA = [
  'Ia1 Lb1 Xc1 Kd1 We1 Xf1 Lg1 Ch1 Pa2 Pb2 Pc2 Pd2 Pe2 Pf2 Pg2 Ph2',
  'Ca8 Lb8 Xc8 Wd8 Ke8 Xf8 Lg8 Ih8 Pa7 Pb7 Pc7 Pd7 Pe7 Pf7 Pg7 Ph7',
];

export const SETUPS = {
  ultima: ULTIMA,
  ultima1968: ULTIMA,
  rollerball: ['Pc1 Pc2 Bd1 Kd2 Re1 Re2', 'Pe7 Pe6 Bd7 Kd6 Rc7 Rc6'],
  yalta: [
    'Ra1 Nb1 Bc1 Qd1 Ke1 Bf1 Ng1 Rh1 Pa2 Pb2 Pc2 Pd2 Pe2 Pf2 Pg2 Ph2',
    'Rl8 Nk8 Bj8 Qi8 Kd8 Bc8 Nb8 Ra8 Pa7 Pb7 Pc7 Pd7 Pi7 Pj7 Pk7 Pl7',
    'Rh12 Ng12 Bf12 Qe12 Ki12 Bj12 Nk12 Rl12 Pe11 Pf11 Pg11 Ph11 Pi11 Pj11 Pk11 Pl11',
  ],
  ant2: [
    'Qg1 Wk1 Gi2 Lh3 Bg4 Lf3 Ge2 Wd1 Al1 Ak2 Ai3 Ah4 Ag5 Af4 Ae3 Ad2 Ac1',
    'Qg13 Wd10 Ge10 Lf10 Bg10 Lh10 Gi10 Wk10 Ac9 Ad9 Ae9 Af9 Ag9 Ah9 Ai9 Ak9 Al9',
  ],
  ant3: [
    'Qg1 Wk1 Gi2 Lh3 Bg4 Lf3 Ge2 Wd1 Al1 Ak2 Ai3 Ah4 Ag5 Af4 Ae3 Ad2 Ac1',
    'Qa7 Wa4 Gb5 Lc6 Bd7 Ld8 Gd9 Wd10 Aa3 Ab4 Ac5 Ad6 Ae7 Ae8 Ae9 Ae10 Ae11',
    'Qn7 Wk10 Gk9 Lk8 Bk7 Ll6 Gm5 Wn4 Ai11 Ai10 Ai9 Ai8 Ai7 Ak6 Al5 Am4 An3',
  ],
};

// Map cell -> {kind, owner} for a game's starting position.
export function startPosition(game) {
  const pos = new Map();
  SETUPS[game].forEach((army, owner) => {
    for (const tok of army.split(/\s+/)) pos.set(tok.slice(1), { kind: tok[0], owner });
  });
  return pos;
}
