import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderInApp } from '../../test/support/render';
import { TheoryText } from './TheoryText';

describe('TheoryText', () => {
  it('joins a paragraph’s file lines and keeps indented formulas as blocks', () => {
    renderInApp(
      <TheoryText text={'Reno grows\nits window.\n\n    ρ = C·RTT² / (2·MSS)\n\nSo it is slow.'} />,
    );
    expect(screen.getByText('Reno grows its window.').tagName).toBe('P');
    expect(screen.getByText('ρ = C·RTT² / (2·MSS)').tagName).toBe('PRE');
    expect(screen.getByText('So it is slow.')).toBeTruthy();
  });
});
